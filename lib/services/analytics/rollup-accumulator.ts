/**
 * The rollups' write side (issue 22 item 1, ARCHITECTURE.md §5): every trace is summed in memory, once,
 * into the group of traces it shares every rollup key with — the same UTC hour, style, node, model and
 * tags — so recording costs one Map lookup and a handful of numeric adds (lib/core/analytics/rollup
 * `addTrace`). The keys a group adds to are worked out only when the write-behind queue drains (at least
 * once a second, and before a Lambda invocation ends): the groups are summed per key and handed over as
 * one counter write each, which the queue sends as one `ADD` (raising the maxima with it).
 *
 * Keys of a trace (lib/services/store/keys): the day's node × model (when it has a node), the day's
 * tags (each), the hour's fleet (with per-style counts), the hour's model, the hour's node (when it has
 * a node) and the all-time node × model (when it has a node). Day rollups expire `MAX_WINDOW_DAYS` after
 * their day, hour rollups `MAX_WINDOW_HOURS` after their hour; totals never.
 */
import {
  addSums,
  addTrace,
  createRollupSums,
  incrementsOf,
  type RollupSums,
  type RollupTrace,
} from '../../core/analytics/rollup';
import { MAX_WINDOW_DAYS, MAX_WINDOW_HOURS } from '../../core/analytics/window';
import { causeText, logger } from '../platform/logger';
import { keyId } from '../store/item';
import { dayRollupKey, hourRollupKey, type ItemKey, totalRollupKey } from '../store/keys';
import type { SourceCounters } from '../store/write-behind';

/** A trace as the accumulator groups it. */
export interface AccumulatedTrace extends RollupTrace {
  readonly requestedModel: string;
  readonly servedModel?: string;
  readonly nodeId?: string;
  readonly tags: readonly string[];
  /** The application it was counted for in fair sharing (issue 43); absent for the router's own work. */
  readonly app?: string | undefined;
}

export interface RollupAccumulator {
  add(trace: AccumulatedTrace): void;
  hasPending(): boolean;
  /** One counter write per rollup key of everything added since the last call. */
  drain(): SourceCounters[];
}

interface Group {
  readonly hourStart: number;
  readonly style: string;
  readonly nodeId: string | undefined;
  readonly model: string;
  readonly tags: readonly string[];
  readonly app: string | undefined;
  readonly sums: RollupSums;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Between the parts of a group's map key; a name holding it only costs an exact-match fallback. */
const SEPARATOR = '\u0000';

function sameGroup(group: Group, hourStart: number, trace: AccumulatedTrace, model: string): boolean {
  if (group.hourStart !== hourStart || group.style !== trace.style) return false;
  if (group.nodeId !== trace.nodeId || group.model !== model || group.app !== trace.app) return false;
  if (group.tags === trace.tags) return true;
  if (group.tags.length !== trace.tags.length) return false;
  return group.tags.every((tag, index) => tag === trace.tags[index]);
}

export function createRollupAccumulator(): RollupAccumulator {
  let groups = new Map<string, Group>();

  function groupOf(trace: AccumulatedTrace): Group {
    const hourStart = trace.startedAt - (((trace.startedAt % HOUR_MS) + HOUR_MS) % HOUR_MS);
    const model = trace.servedModel ?? trace.requestedModel;
    let key = `${hourStart}${SEPARATOR}${trace.style}${SEPARATOR}${trace.nodeId ?? ''}${SEPARATOR}${model}${SEPARATOR}${trace.app ?? ''}`;
    for (const tag of trace.tags) key += SEPARATOR + tag;
    let group = groups.get(key);
    if (group !== undefined && !sameGroup(group, hourStart, trace, model)) {
      // Names holding the separator made two groups read alike: this one's key says exactly what it is.
      key = JSON.stringify([hourStart, trace.style, trace.nodeId ?? null, model, trace.app ?? null, trace.tags]);
      group = groups.get(key);
    }
    if (group === undefined) {
      const { style, nodeId, tags, app } = trace;
      group = { hourStart, style, nodeId, model, tags, app, sums: createRollupSums() };
      groups.set(key, group);
    }
    return group;
  }

  return {
    add(trace) {
      addTrace(groupOf(trace).sums, trace);
    },
    hasPending: () => groups.size > 0,
    drain() {
      const taken = groups;
      groups = new Map();
      return rollupWrites(taken.values());
    },
  };
}

interface KeyedSums {
  readonly key: ItemKey;
  readonly expiresAt: number | undefined;
  readonly sums: RollupSums;
  /** Requests per style, and those not completed (the fleet's hours). */
  readonly styles?: Map<string, { requests: number; failed: number }>;
}

/** An empty part (a trace with no model or node name) still makes a valid key. */
const named = (name: string) => (name === '' ? '(empty)' : name);

/** The groups summed per rollup key, as counter writes. */
function rollupWrites(groups: Iterable<Group>): SourceCounters[] {
  const byKey = new Map<string, KeyedSums>();
  const addTo = (key: ItemKey, expiresAt: number | undefined, group: Group, byStyle = false) => {
    const id = keyId(key.pk, key.sk);
    let entry = byKey.get(id);
    if (entry === undefined) {
      entry = { key, expiresAt, sums: createRollupSums(), ...(byStyle ? { styles: new Map() } : {}) };
      byKey.set(id, entry);
    }
    addSums(entry.sums, group.sums);
    if (entry.styles === undefined) return;
    const { requests, completed } = group.sums.counters;
    const style = entry.styles.get(group.style);
    if (style === undefined) entry.styles.set(group.style, { requests, failed: requests - completed });
    else {
      style.requests += requests;
      style.failed += requests - completed;
    }
  };
  for (const group of groups) {
    let keys: GroupKey[];
    try {
      keys = keysOf(group);
    } catch (error) {
      // A group no key can be made for (a start time that is not a time) is left out, not the others.
      logger().limited('rollups', 'warn', 'rollups: a group of traces has no valid key', { cause: causeText(error) });
      continue;
    }
    for (const [key, expiresAt, byStyle] of keys) addTo(key, expiresAt, group, byStyle);
  }
  return [...byKey.values()].map(({ key, expiresAt, sums, styles }) => {
    const { counters, maxima } = incrementsOf(sums);
    for (const [style, { requests, failed }] of styles ?? []) {
      if (requests > 0) counters[`style_${style}`] = requests;
      if (failed > 0) counters[`style_${style}_failed`] = failed;
    }
    return { pk: key.pk, sk: key.sk, counters, maxima, ...(expiresAt === undefined ? {} : { set: { expiresAt } }) };
  });
}

/** A rollup key, its expiry (epoch seconds; none for totals) and whether it counts styles. */
type GroupKey = readonly [ItemKey, number | undefined, boolean];

/** The keys one group adds to (the header lists them), all made before any is added to. */
function keysOf(group: Group): GroupKey[] {
  const { hourStart, nodeId: rawNodeId } = group;
  const model = named(group.model);
  const dayExpires = (Math.floor(hourStart / DAY_MS) * DAY_MS + DAY_MS) / 1000 + MAX_WINDOW_DAYS * 86_400;
  const hourExpires = (hourStart + HOUR_MS) / 1000 + MAX_WINDOW_HOURS * 3600;
  const keys: GroupKey[] = [
    [hourRollupKey(hourStart, { kind: 'fleet' }), hourExpires, true],
    [hourRollupKey(hourStart, { kind: 'model', model }), hourExpires, false],
  ];
  if (rawNodeId !== undefined) {
    const nodeId = named(rawNodeId);
    keys.push([dayRollupKey(hourStart, { kind: 'node-model', nodeId, model }), dayExpires, false]);
    keys.push([hourRollupKey(hourStart, { kind: 'node', nodeId }), hourExpires, false]);
    keys.push([totalRollupKey(nodeId, model), undefined, false]);
  }
  for (const tag of new Set(group.tags)) keys.push([dayRollupKey(hourStart, { kind: 'tag', tag }), dayExpires, false]);
  if (group.app !== undefined) keys.push([dayRollupKey(hourStart, { kind: 'app', app: group.app }), dayExpires, false]);
  return keys;
}
