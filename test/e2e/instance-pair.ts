/**
 * Two router instances on one table (ARCHITECTURE.md §3.6), as two Lambda containers or two emulators
 * are: one external DynamoDB stand-in in a process of its own (./dynalite-process) and two built
 * emulators (./router-process) pointed at it with the same FLEET_TABLE. What one instance writes — node
 * records, queue depths, pins, locks, settings, traces, benchmark runs — the other reads from the table
 * only. The two-instances-*.test.ts suites start one pair each; `table()` reads what the routers wrote.
 */
import { CATALOG, type SimAgent, type SimNodeOptions, startSimAgent } from '../../emulator/sim';
import { createDynamoClient } from '../../lib/services/store/client';
import { openTable, type Table } from '../../lib/services/store/table';
import { type DynaliteProcess, startDynaliteProcess } from './dynalite-process';
import { type RouterProcess, startRouter } from './router-process';

export interface InstancePair {
  readonly dynamo: DynaliteProcess;
  readonly a: RouterProcess;
  readonly b: RouterProcess;
  /** The table both instances use, opened from the test. */
  table(): Table;
  /** Starts one more router on the same table (a Lambda container a burst adds); stopped with the pair. */
  another(): Promise<RouterProcess>;
  /** Stops both routers (a killed one is skipped) and the table. */
  stop(): Promise<void>;
}

let tables = 0;

/** Starts the table, then both routers on it with `env` (each router's own variables added to it). */
export async function startInstancePair(env: Record<string, string> = {}): Promise<InstancePair> {
  const dynamo = await startDynaliteProcess();
  tables += 1;
  const name = `fleet-two-instances-${process.pid}-${tables}`;
  const shared = { ...env, FLEET_DYNAMODB_ENDPOINT: dynamo.endpoint, FLEET_TABLE: name };
  let routers: RouterProcess[] = [];
  try {
    // One after the other: the first creates the table, the second finds it.
    routers.push(await startRouter(shared));
    routers.push(await startRouter(shared));
  } catch (error) {
    await Promise.all(routers.map((router) => router.stop()));
    await dynamo.stop();
    throw error;
  }
  const [a, b] = routers as [RouterProcess, RouterProcess];
  const more: RouterProcess[] = [];
  return {
    dynamo,
    a,
    b,
    table: () => openTable(createDynamoClient({ dynamodbEndpoint: dynamo.endpoint }), name),
    another: async () => {
      const router = await startRouter(shared);
      more.push(router);
      return router;
    },
    stop: async () => {
      await Promise.all([a.stop(), b.stop(), ...more.map((router) => router.stop())]);
      routers = [];
      await dynamo.stop();
    },
  };
}

/**
 * A node agent with `model` loaded that posts its heartbeats to `routerUrl` only — instance A in the
 * two-instance suites, so instance B learns of it through the table — the first at once, then every
 * `intervalMs` (by default only when asked). `ollama` adds to its simulated Ollama's options. The caller
 * stops it (`agent.stop()`).
 */
export async function agentPostingTo(
  routerUrl: string,
  nodeId: string,
  model: string,
  ollama: SimNodeOptions = {},
  intervalMs = 600_000,
): Promise<SimAgent> {
  const agent = await startSimAgent({
    nodeId,
    routerUrl,
    intervalMs,
    ollamaOptions: {
      id: nodeId,
      models: CATALOG.filter((entry) => entry.name === model),
      loaded: [model],
      ttftMs: 5,
      tokensPerSecond: 2000,
      ...ollama,
    },
  });
  await agent.sendHeartbeat();
  return agent;
}
