/**
 * The queue depths the scorer reads (issue: routing item 2; ARCHITECTURE.md §3.6): this instance's own
 * queues, exact, plus what the other instances last published through the table, at most about a second
 * old. Another instance's published counts are re-read in the background — at every tick of the
 * instance's refresh ticker (`readAhead`), and when a request finds them older than `refreshMs` — never
 * on the request's path; a failed read keeps the last good counts until they expire.
 * So a node that another Lambda container keeps busy scores as busy here too. The same read gives each
 * queue its share of the node's slots (./shared-slots).
 */
import type { QueueDepths } from '../../core/scoring/load-signals';

/** What another instance published for one node:model. */
export interface PublishedDepth {
  readonly nodeId: string;
  readonly model: string;
  readonly pending: number;
  readonly inFlight: number;
}

export interface FleetDepthsOptions {
  /** Reads every other live instance's published entries. */
  readonly loadOthers: () => Promise<readonly PublishedDepth[]>;
  readonly refreshMs?: number;
  /** Counts older than this are dropped when they cannot be re-read (an instance's published TTL). */
  readonly maxAgeMs?: number;
  readonly clock?: () => number;
}

export interface FleetDepths extends QueueDepths {
  /** Re-reads the other instances' counts now (tests, and the first request of a container). */
  refresh(): Promise<void>;
  /**
   * Re-reads them in the background unless none were read yet (nothing to keep fresh: the first read is
   * a request's) or a read is under way: the refresh ticker's work (lib/services/platform/refresh-ticker).
   */
  readAhead(): void;
}

export function createFleetDepths(local: QueueDepths, options: FleetDepthsOptions): FleetDepths {
  const clock = options.clock ?? Date.now;
  const refreshMs = options.refreshMs ?? 1000;
  const maxAgeMs = options.maxAgeMs ?? 10_000;
  /** model → node id → depth published by other instances. */
  let others = new Map<string, Map<string, number>>();
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  const refresh = (): Promise<void> => {
    loading ??= options
      .loadOthers()
      .then((entries) => {
        others = byModel(entries);
        loadedAt = clock();
      })
      .catch(() => {
        // Keep the last good counts; they expire below.
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  const current = (): Map<string, Map<string, number>> => {
    const age = clock() - loadedAt;
    if (age >= refreshMs && loading === undefined) void refresh();
    if (age > maxAgeMs && others.size > 0) others = new Map();
    return others;
  };

  return {
    refresh,
    readAhead() {
      if (loadedAt !== Number.NEGATIVE_INFINITY && loading === undefined) void refresh();
    },
    depth(nodeId, model) {
      return local.depth(nodeId, model) + (others.get(model)?.get(nodeId) ?? 0);
    },
    forEachBusy(model, visit) {
      const remote = current().get(model);
      if (remote === undefined) {
        local.forEachBusy(model, visit);
        return;
      }
      local.forEachBusy(model, (nodeId, depth) => visit(nodeId, depth + (remote.get(nodeId) ?? 0)));
      for (const [nodeId, depth] of remote) {
        if (local.depth(nodeId, model) === 0) visit(nodeId, depth);
      }
    },
    forEachBusyModel(visit) {
      const remote = current();
      local.forEachBusyModel?.((model, nodeId, depth) =>
        visit(model, nodeId, depth + (remote.get(model)?.get(nodeId) ?? 0)),
      );
      for (const [model, byNode] of remote) {
        for (const [nodeId, depth] of byNode) if (local.depth(nodeId, model) === 0) visit(model, nodeId, depth);
      }
    },
  };
}

function byModel(entries: readonly PublishedDepth[]): Map<string, Map<string, number>> {
  const models = new Map<string, Map<string, number>>();
  for (const entry of entries) {
    const depth = entry.pending + entry.inFlight;
    if (depth <= 0) continue;
    let nodes = models.get(entry.model);
    if (nodes === undefined) {
      nodes = new Map();
      models.set(entry.model, nodes);
    }
    nodes.set(entry.nodeId, (nodes.get(entry.nodeId) ?? 0) + depth);
  }
  return models;
}
