/**
 * The fleet a routing-bench run replays onto (issue 41 item 3): either the scenario's simulated nodes,
 * each with a node agent that heartbeats to the router every second (so the router sees loads and
 * evictions promptly), started in this process with the same seed for every strategy, each modelled by
 * the simulated performance model (emulator/sim/performance: hardware class, speed, memory, time scale); or a user's own
 * nodes (`--nodes id=url,…`), which the router polls as listed nodes and which this bench cannot look
 * inside (no node-side statistics).
 */
import { catalogEntry, type SimAgent, startSimAgent } from '../../emulator/sim';
import type { ScenarioNode } from './scenario';

/** What a node counted during a run (the simulated performance model's statistics). */
export interface NodeStats {
  readonly requests: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly outputTokens: number;
  readonly coldLoads: number;
  readonly evictions: number;
  readonly waited: number;
  readonly busyMs: number;
  readonly slotMs: number;
}

export interface BenchFleet {
  /** FLEET_NODES for the router: empty when the nodes join through agents. */
  readonly listed: string;
  /** Node id → slots (OLLAMA_NUM_PARALLEL), where known. */
  readonly slots: ReadonlyMap<string, number>;
  /** Models each node should report loaded before the replay starts. */
  readonly expectedLoaded: ReadonlyMap<string, readonly string[]>;
  /** Starts the agents' heartbeats to `routerUrl` (simulated fleets; listed nodes need nothing). */
  join(routerUrl: string): Promise<void>;
  /** Zeroes the nodes' statistics (just before the replay). */
  resetStats(): void;
  /** Per node, what it counted since the reset; undefined for nodes the bench cannot look inside. */
  stats(): ReadonlyMap<string, NodeStats> | undefined;
  stop(): Promise<void>;
}

export const HEARTBEAT_INTERVAL_MS = 1000;

/** A user's nodes, `id=url,…` as FLEET_NODES takes them. */
export function listedFleet(nodes: string): BenchFleet {
  return {
    listed: nodes,
    slots: new Map(),
    expectedLoaded: new Map(),
    join: async () => undefined,
    resetStats: () => undefined,
    stats: () => undefined,
    stop: async () => undefined,
  };
}

/** The simulated nodes of a scenario; their agents join the router on `join`. */
export function simulatedFleet(nodes: readonly ScenarioNode[], timeScale: number, seed: number): BenchFleet {
  let agents: SimAgent[] = [];
  return {
    listed: '',
    slots: new Map(nodes.map((node) => [node.id, node.numParallel])),
    expectedLoaded: new Map(nodes.map((node) => [node.id, node.loaded])),
    join: async (routerUrl) => {
      agents = await Promise.all(
        nodes.map((node) =>
          startSimAgent({
            nodeId: node.id,
            routerUrl,
            intervalMs: HEARTBEAT_INTERVAL_MS,
            ollamaOptions: {
              id: node.id,
              host: '127.0.0.1',
              numParallel: node.numParallel,
              maxLoadedModels: node.maxLoadedModels,
              models: node.models.map(catalogEntry),
              loaded: node.loaded,
              performance: {
                hardware: node.hardware,
                speed: node.speed,
                timeScale,
                seed,
                memoryGb: node.memoryGb,
                multiUserCache: node.multiUserCache,
              },
            },
          }),
        ),
      );
    },
    resetStats: () => {
      for (const agent of agents) agent.node.resetStats();
    },
    stats: () => {
      const stats = new Map<string, NodeStats>();
      for (const agent of agents) {
        const counted = agent.node.performanceStats();
        if (counted !== undefined) stats.set(agent.nodeId, counted);
      }
      return stats;
    },
    stop: async () => {
      await Promise.all(agents.map((agent) => agent.stop()));
      agents = [];
    },
  };
}
