/**
 * The fleet side of a function instance's composition root: config → DynamoDB client → table → the
 * registry, its polls, the write-behind, and the routing state (queues, their publication, depths,
 * latency, pins, ejection), built once per container on first use. lib/instance.ts builds the rest of the
 * services (the dispatcher, traces, analytics, context layers, benchmarks) on top of this one.
 *
 * It is a module of its own so that the functions whose routes use only these — `fleet` (status, queue,
 * heartbeats) and `poller` — bundle only them (ARCHITECTURE.md §6: cold start): what a bundle holds is
 * parsed at every cold start, used or not. In the emulator every function shares this one instance, and
 * lib/instance.ts's services are built on it, never beside it: one registry, one set of queues.
 *
 * Only the handlers in functions/ and lib/instance.ts import it (biome.json).
 */
import { randomUUID } from 'node:crypto';
import { weightOf } from './core/queue/sharing-policy';
import type { RoutingStrategy } from './core/scoring/routing-strategy';
import { type AffinityTracker, createAffinityTracker } from './services/dispatch/affinity';
import { type AppLimits, createAppLimits } from './services/dispatch/app-limits';
import { createFleetDepths, type FleetDepths } from './services/dispatch/fleet-depths';
import { createLatencyStats, type LatencyStats } from './services/dispatch/latency-stats';
import { createNodeRates, type NodeRates } from './services/dispatch/node-rates';
import { createOutlierEjection, type OutlierEjection } from './services/dispatch/outlier-ejection';
import { createPrefillLedger, type PrefillLedger } from './services/dispatch/prefill-ledger';
import { createPrefixResidency, type PrefixResidency } from './services/dispatch/prefix-residency';
import { createQueueManager, type QueueManager, type QueueState } from './services/dispatch/queue-manager';
import { createQueuePublisher, type QueuePublisher } from './services/dispatch/queue-publisher';
import { createSharedSlots, type SharedSlots } from './services/dispatch/shared-slots';
import { strategyOf } from './services/dispatch/strategy-of';
import type { HandlerOptions } from './services/http/handler';
import { createModelDescriber, type DescribeModels } from './services/node-client/describe-models';
import { type FleetConfig, getConfig } from './services/platform/config';
import { createRefreshTicker, type RefreshTicker } from './services/platform/refresh-ticker';
import { onShutdown } from './services/platform/shutdown-hooks';
import { heartbeatAdmission } from './services/registry/heartbeat-admission';
import { createListedNodePolls, type ListedNodePolls } from './services/registry/poll-listed-nodes';
import { createFleetRegistry, type FleetRegistry } from './services/registry/registry';
import { createAffinityRepository } from './services/store/affinity-repository';
import { createDynamoClient } from './services/store/client';
import { ensureTable } from './services/store/ensure-table';
import { createNodeRepository } from './services/store/node-repository';
import {
  createQueueStateRepository,
  QUEUE_STATE_TTL_MS,
  type QueueStateRepository,
} from './services/store/queue-state-repository';
import { openTable, type Table } from './services/store/table';
import { createWriteBehind, type WriteBehind } from './services/store/write-behind';

export interface FleetServices {
  readonly queueStates: QueueStateRepository;
  /**
   * Every instance's queues, for the status views: this instance's exact and current, the others' as
   * they last published them through the table.
   */
  queueView(now: number): Promise<QueueState[]>;
  readonly config: FleetConfig;
  readonly table: Table;
  readonly registry: FleetRegistry;
  readonly describe: DescribeModels;
  /** The listed nodes' polls under way in this container (the scheduled poller's). */
  readonly polls: ListedNodePolls;
  readonly writeBehind: WriteBehind;
  readonly routing: RoutingState;
  /**
   * The background re-reads that keep what routing reads from memory fresh (the fleet snapshot, the
   * other instances' queue counts; lib/instance.ts adds the runtime settings), ticking every half of
   * `snapshotMaxAgeMs`. Started by lib/instance.ts, whose functions route: the `fleet` and `poller`
   * functions, which do not, read on demand instead of twice a second for as long as they run.
   */
  readonly ticker: RefreshTicker;
}

/** What the dispatcher needs that outlives a request: queues, latency observations, affinity pins. */
export interface RoutingState {
  readonly queues: QueueManager;
  /** This instance's queue depths plus the other instances' published ones: what the scorer reads. */
  readonly depths: FleetDepths;
  readonly latency: LatencyStats;
  readonly affinity: AffinityTracker;
  /**
   * Nodes out of routing for failing: this instance's ejections, published through the table, and the
   * ones other instances published (./services/dispatch/outlier-ejection).
   */
  readonly ejection: OutlierEjection;
  /** The nodes' observed prefill and decode rates and load times (./services/dispatch/node-rates). */
  readonly rates: NodeRates;
  /** Where conversations' last turns went, for the prompts nodes may still hold. */
  readonly residency: PrefixResidency;
  /** The prompts each node is evaluating now (./services/dispatch/prefill-ledger). */
  readonly prefill: PrefillLedger;
  /** How candidates are ordered: FLEET_ROUTING_STRATEGY (./services/dispatch/strategy-of). */
  readonly strategy: RoutingStrategy;
  /** Each application's requests in flight against its limit (FLEET_APP_LIMITS, issue 43). */
  readonly appLimits: AppLimits;
}

let fleetServices: FleetServices | undefined;

/** This container's id among the router's instances. */
export const INSTANCE_ID = randomUUID();

/** The Lambda function this container runs as; undefined outside AWS (the emulator, tests). */
export const LAMBDA_FUNCTION_NAME = process.env['AWS_LAMBDA_FUNCTION_NAME'];

export function getFleetServices(): FleetServices {
  return fleetServices ?? initFleetServices(getConfig());
}

/** Builds the fleet services from `config` and makes them this instance's (lib/instance.ts's `initServices`). */
export function initFleetServices(config: FleetConfig): FleetServices {
  const client = createDynamoClient({ dynamodbEndpoint: config.dynamodbEndpoint });
  // Every table call has a short deadline; a table that vanished is created again, not failed on forever.
  const table = openTable(client, config.table, {
    timeoutMs: config.tableTimeoutMs,
    recreate: () => ensureTable(client, config.table),
  });
  const describe = createModelDescriber();
  const writeBehind = createWriteBehind(table);
  const ticker = createRefreshTicker({
    periodMs: config.snapshotMaxAgeMs / 2,
    closed: () => writeBehind.isClosed(),
  });
  const registry = createFleetRegistry({
    store: createNodeRepository(table),
    config,
    describe,
    admission: heartbeatAdmission(config),
    awake: ticker.awake,
  });
  onShutdown(async () => {
    ticker.stop();
    await writeBehind.close();
  });
  // Every change of a depth publishes (throttled): a slot freed by any path shows in every instance's
  // views; one another instance may be waiting for goes out at once (./services/dispatch/queue-publisher).
  let publisher: QueuePublisher | undefined;
  let slots: SharedSlots | undefined;
  const queues = createQueueManager({
    maxPending: config.queueMaxPending,
    timeoutMs: config.queueTimeoutMs,
    onChange: (queue) => publisher?.changed(queue),
    onCreate: (queue) => slots?.prepare(queue),
    onWait: (queue) => slots?.reconsider(queue),
    onIdle: (queue) => slots?.idle(queue),
    // Waiting requests take turns by priority and application (issue 43).
    line: { agingMs: config.sharing.agingMs, weightOf: (app) => weightOf(config.sharing, app) },
  });
  const queueStates = createQueueStateRepository(table, writeBehind);
  publisher = createQueuePublisher({
    instanceId: INSTANCE_ID,
    queues,
    states: queueStates,
    closed: () => writeBehind.isClosed(),
    peersLive: () => slots?.hasPeers() === true,
    flush: () => writeBehind.flush(),
  });
  const announce = publisher.announce;
  // One read of every instance's publication feeds the scorer's depths and this instance's shares of
  // the nodes' slots (./services/dispatch/shared-slots).
  const depths = createFleetDepths(queues, {
    loadOthers: async () => {
      const readAt = Date.now();
      const instances = await queueStates.instances(readAt).catch((error: unknown) => {
        slots?.readFailed(readAt);
        throw error;
      });
      slots?.update(instances, readAt);
      return instances.flatMap((published) => (published.instanceId === INSTANCE_ID ? [] : published.entries));
    },
    maxAgeMs: QUEUE_STATE_TTL_MS,
  });
  // Each tick re-reads the fleet and the other instances' counts once a request has read them, so neither
  // is read on a request's path while the process runs, and the shares of the nodes' slots stay "alone as
  // of a recent read".
  ticker.onTick(registry.readAhead);
  ticker.onTick(depths.readAhead);
  // Writes that failed while the table was down go at the first good read of it after failed ones, not
  // after a backoff of up to half a minute: traces of an outage show within a tick of the table's return.
  // Only then: a write refused while reads go through (throttling) keeps its backoff.
  let readsFailed = false;
  ticker.onTick(() => {
    const { ageMs, refreshFailed } = registry.freshness();
    if (refreshFailed) {
      readsFailed = true;
    } else if (readsFailed && ageMs !== undefined && ageMs < config.snapshotMaxAgeMs) {
      readsFailed = false;
      writeBehind.retryNow();
    }
  });
  slots = createSharedSlots({
    instanceId: INSTANCE_ID,
    queues,
    refresh: () => depths.refresh(),
    announce,
    closed: () => writeBehind.isClosed(),
    maxAgeMs: QUEUE_STATE_TTL_MS,
  });
  fleetServices = {
    config,
    table,
    registry,
    describe,
    polls: createListedNodePolls({ registry, describe }),
    writeBehind,
    ticker,
    queueStates,
    queueView: async (now) => [
      ...queues.entries(),
      // The status views still answer while the table is down: with this instance's queues only.
      ...(await queueStates.live(now, { exceptInstanceId: INSTANCE_ID }).catch(() => [])),
    ],
    routing: {
      queues,
      depths,
      latency: createLatencyStats(),
      affinity: createAffinityTracker({ store: createAffinityRepository(table, writeBehind) }),
      // One write per ejection this instance decides; every instance reads them with its snapshot (issue 45).
      ejection: createOutlierEjection(config.ejection, {
        instanceId: INSTANCE_ID,
        publish: (ejection) => {
          registry
            .publishEjection(ejection)
            .catch((error: unknown) => console.error(`ejection of ${ejection.nodeId} not published: ${String(error)}`));
        },
      }),
      rates: createNodeRates(),
      residency: createPrefixResidency(),
      prefill: createPrefillLedger(),
      strategy: strategyOf(config.routingStrategy),
      appLimits: createAppLimits(config.sharing),
    },
  };
  return fleetServices;
}

/** In AWS a container is frozen between invocations, so written-behind items go out before one ends. */
const inLambda = LAMBDA_FUNCTION_NAME !== undefined;

/**
 * What every HTTP handler is wrapped with: the client, operator and node keys it accepts (from the same config
 * as the services, so the registry's heartbeat rules and the wrapper's key check agree), the origins
 * browsers may call from (CORS), the end-of-invocation flush.
 */
export function handlerOptions(): HandlerOptions {
  const flush = async () => {
    if (fleetServices !== undefined) await fleetServices.writeBehind.flush();
  };
  const config = fleetServices?.config ?? getConfig();
  return {
    apiKeys: config.apiKeys,
    adminKeys: config.adminKeys,
    nodeKeys: config.nodeKeys,
    corsOrigins: config.corsOrigins,
    ...(inLambda ? { afterResponse: flush } : {}),
  };
}
