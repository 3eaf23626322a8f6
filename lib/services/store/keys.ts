/**
 * The one place partition and sort keys are built (ARCHITECTURE.md §3.4: one table, pk/sk plus `gsi1`).
 * Every kind of item gets one small function here, so a key shape is defined once and a typo cannot
 * create a second, silently different partition. Pure.
 */

/** The primary key of one item. */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/** Joins the parts of a composite key value. */
export const KEY_SEPARATOR = '#';

/** Partition holding every node record, one item per node (sort key = node id). */
export const NODE_PARTITION = 'NODE';

/** Sort key of singleton items whose partition already names them (locks, settings). */
const SINGLETON_SORT_KEY = 'ITEM';

/**
 * Builds `PREFIX#part#part…`. Only the last part may contain the separator: an earlier one would make
 * two different keys render to the same string, so it is refused.
 */
export function prefixedKey(prefix: string, ...parts: readonly string[]): string {
  // A plain loop: every routed request builds two to four keys here.
  let key = checkedPart(prefix, 0, parts.length === 0, prefix, parts);
  for (let index = 0; index < parts.length; index += 1) {
    key += KEY_SEPARATOR + checkedPart(parts[index] as string, index + 1, index === parts.length - 1, prefix, parts);
  }
  return key;
}

function checkedPart(part: string, index: number, last: boolean, prefix: string, parts: readonly string[]): string {
  if (part === '') throw new Error(`key part ${index} of "${[prefix, ...parts].join(KEY_SEPARATOR)}" is empty`);
  if (!last && part.includes(KEY_SEPARATOR)) throw new Error(`key part "${part}" may not contain "${KEY_SEPARATOR}"`);
  return part;
}

/** A node record: all nodes share one partition so the fleet is read with one query. */
export function nodeKey(nodeId: string): ItemKey {
  if (nodeId === '') throw new Error('node id is empty');
  return { pk: NODE_PARTITION, sk: nodeId };
}

/** A named lock (a model pull, a rollup run): one partition per lock, taken with a conditional put. */
export function lockKey(name: string): ItemKey {
  return { pk: prefixedKey('LOCK', name), sk: SINGLETON_SORT_KEY };
}

/** The runtime settings the dashboard changes (one item, shared by every instance). */
export function settingsKey(): ItemKey {
  return { pk: 'SETTINGS', sk: SINGLETON_SORT_KEY };
}

/** `2026-11-21`: traces and usage are partitioned by UTC day, so a day's items are one query. */
export function dayOf(epochMs: number): string {
  // Every routed request asks for today's: the last answer is kept until the day ends.
  if (epochMs >= lastDay.start && epochMs < lastDay.start + DAY_MS) return lastDay.text;
  const start = Math.floor(epochMs / DAY_MS) * DAY_MS;
  const text = new Date(start).toISOString().slice(0, 10);
  lastDay = { start, text };
  return text;
}

const DAY_MS = 86_400_000;
let lastDay = { start: Number.NaN, text: '' };

/**
 * A page of request traces (many traces, one item): one partition per day, sorted by the latest start
 * among the page's traces, then the writing instance and its page number, so two instances never collide;
 * `gsi1` lists every page newest-first.
 */
export function tracePageKey(
  newestEpochMs: number,
  instanceId: string,
  sequence: number,
): ItemKey & { gsi1pk: string; gsi1sk: string } {
  const time = new Date(newestEpochMs).toISOString();
  const sk = prefixedKey(time, instanceId, String(sequence).padStart(8, '0'));
  return { pk: prefixedKey('TRACE', dayOf(newestEpochMs)), sk, gsi1pk: 'TRACE', gsi1sk: sk };
}

/**
 * What a rollup item sums (lib/core/analytics/rollup): per UTC day, one node's model and one tag; per
 * UTC hour, the fleet, one model and one node; and all time, one node's model (what `/metrics` counts).
 */
export type RollupScope =
  | { readonly kind: 'node-model'; readonly nodeId: string; readonly model: string }
  | { readonly kind: 'tag'; readonly tag: string }
  | { readonly kind: 'app'; readonly app: string }
  | { readonly kind: 'fleet' }
  | { readonly kind: 'model'; readonly model: string }
  | { readonly kind: 'node'; readonly nodeId: string };

/** Sort-key prefixes of the rollup scopes: a Query with one of these reads one scope of a period. */
export const ROLLUP_SK_PREFIX = {
  'node-model': 'NM#',
  tag: 'TAG#',
  app: 'APP#',
  fleet: 'F#',
  model: 'M#',
  node: 'N#',
} as const;

/** A node id inside a key: `#` would split it from the model after it. */
function keyNodeId(nodeId: string): string {
  return nodeId.replaceAll(KEY_SEPARATOR, '_');
}

/**
 * A day's rollup: partition `ROLLUP#D#<day>` holds every node × model (`NM#<node>#<model>`) and tag
 * (`TAG#<tag>`) of that UTC day, so a window of N days is N Queries, whatever the traffic.
 */
export function dayRollupKey(
  epochMs: number,
  scope: Extract<RollupScope, { kind: 'node-model' | 'tag' | 'app' }>,
): ItemKey {
  const pk = prefixedKey('ROLLUP', 'D', dayOf(epochMs));
  if (scope.kind === 'tag') return { pk, sk: prefixedKey('TAG', scope.tag === '' ? '(empty)' : scope.tag) };
  if (scope.kind === 'app') return { pk, sk: prefixedKey('APP', scope.app) };
  return { pk, sk: prefixedKey('NM', keyNodeId(scope.nodeId), scope.model) };
}

/**
 * An hour's rollup: partition `ROLLUP#H#<day>` holds that UTC day's hours, the fleet's (`F#<HH>`), each
 * model's (`M#<HH>#<model>`) and each node's (`N#<HH>#<node>`).
 */
export function hourRollupKey(
  epochMs: number,
  scope: Extract<RollupScope, { kind: 'fleet' | 'model' | 'node' }>,
): ItemKey {
  const pk = prefixedKey('ROLLUP', 'H', dayOf(epochMs));
  const hour = String(new Date(epochMs).getUTCHours()).padStart(2, '0');
  if (scope.kind === 'fleet') return { pk, sk: prefixedKey('F', hour) };
  if (scope.kind === 'model') return { pk, sk: prefixedKey('M', hour, scope.model) };
  return { pk, sk: prefixedKey('N', hour, keyNodeId(scope.nodeId)) };
}

/** All-time totals of one node's model (partition `ROLLUP#T`): Prometheus counters never reset at midnight. */
export function totalRollupKey(nodeId: string, model: string): ItemKey {
  return { pk: prefixedKey('ROLLUP', 'T'), sk: prefixedKey('NM', keyNodeId(nodeId), model) };
}

/** A conversation's pin to the node that served it (routing affinity), shared by every instance. */
export function affinityKey(conversationKey: string): ItemKey {
  return { pk: 'AFFINITY', sk: conversationKey };
}

/** One router instance's published queue state (ARCHITECTURE.md §3.6: in-flight counts shared through the table). */
export function queueStateKey(instanceId: string): ItemKey {
  return { pk: 'QUEUES', sk: instanceId };
}

/**
 * The tool results the context layers cleared in one conversation (Layer 1's sticky cut), one item per
 * conversation, in a partition of its own: read with one GetItem.
 */
export function clearedToolResultsKey(conversationKey: string): ItemKey {
  return { pk: prefixedKey('CLEARED', conversationKey), sk: SINGLETON_SORT_KEY };
}

/** A Layer 2 summary of one tool result, under its cache key (strategy and content hash). */
export function toolResultSummaryKey(cacheKey: string): ItemKey {
  return { pk: prefixedKey('SUMMARY', cacheKey), sk: SINGLETON_SORT_KEY };
}

/**
 * A benchmark run (issue 22 item 6): every run in one partition under its id, which starts with its start
 * time (`bench-<epoch ms>-…`), so the newest runs are one Query read backwards.
 */
export function benchmarkRunKey(runId: string): ItemKey {
  return { pk: 'BENCHMARK', sk: runId };
}

/** An operator's cancel of a benchmark run, apart from the run the runner keeps overwriting. */
export function benchmarkCancelKey(runId: string): ItemKey {
  return { pk: prefixedKey('BENCHMARK', 'CANCEL'), sk: runId };
}
