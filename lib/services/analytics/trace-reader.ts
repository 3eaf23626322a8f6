/**
 * Recent traces, newest first (issue 22 items 1–2): read by key from `gsi1` (partition `TRACE`, sort key
 * the latest start time among the page's traces, then instance and page number: lib/services/store/keys
 * `tracePageKey`), pages newest first, a few at a time, never a Scan.
 *
 * The merge rule. Pages of different instances overlap in time, and inside a page the traces are in the
 * order they were recorded (a long request is recorded late), so the traces found are sorted by start
 * time, newest first. No trace in a page started after the page's key, so once `limit` traces are kept
 * and the next page's key is before the oldest of them, no unread page holds a newer one: the list is
 * exact.
 *
 * Traces of benchmark runs (`benchmarkRunId`) stay out unless asked for. A read stops at
 * `MAX_READ_BYTES` of pages and says so (`partial`): a filter that matches almost nothing cannot make
 * one request read thirty days of traces.
 */

import type { Trace, TraceStatus } from '../../core/analytics/trace-record';
import type { Table } from '../store/table';

export interface TraceQuery {
  /** How many traces, newest first. */
  readonly limit: number;
  /** The model asked for or the one that served. */
  readonly model?: string;
  readonly nodeId?: string;
  readonly status?: TraceStatus;
  readonly tag?: string;
  /** `exclude` (default): users' traffic only; `include`: benchmark traces too; `{ runId }`: that run's only. */
  readonly benchmark?: 'exclude' | 'include' | { readonly runId: string };
}

export interface TraceRead {
  readonly traces: readonly Trace[];
  /** The read stopped at its byte budget before it could rule out older matches. */
  readonly partial: boolean;
  /** Pages read (table items), for the call-count tests. */
  readonly pagesRead: number;
}

export interface TraceReader {
  recent(query: TraceQuery): Promise<TraceRead>;
}

/** Page JSON read per request at most (pages are at most 256 KB). */
export const MAX_READ_BYTES = 16 * 1024 * 1024;
const FIRST_BATCH = 4;
const MAX_BATCH = 64;

export interface TraceReaderOptions {
  readonly maxReadBytes?: number;
}

export function createTraceReader(table: Pick<Table, 'queryDocs'>, options: TraceReaderOptions = {}): TraceReader {
  const maxReadBytes = options.maxReadBytes ?? MAX_READ_BYTES;
  return {
    async recent(query) {
      const matches = traceFilter(query);
      const kept: Trace[] = [];
      let before: string | undefined;
      let batch = FIRST_BATCH;
      let bytes = 0;
      let pagesRead = 0;
      for (;;) {
        const items = await table.queryDocs('TRACE', {
          index: 'gsi1',
          scanForward: false,
          limit: batch,
          ...(before === undefined ? {} : { skBefore: before }),
        });
        for (const item of items) {
          pagesRead += 1;
          bytes += item.doc?.length ?? 0;
          for (const trace of pageTraces(item.doc)) if (matches(trace)) kept.push(trace);
        }
        const last = items[items.length - 1];
        if (items.length < batch || last?.gsi1sk === undefined) return done(kept, query.limit, false, pagesRead);
        before = last.gsi1sk;
        if (enough(kept, query.limit, keyTime(before))) return done(kept, query.limit, false, pagesRead);
        if (bytes >= maxReadBytes) return done(kept, query.limit, true, pagesRead);
        batch = Math.min(batch * 2, MAX_BATCH);
      }
    },
  };
}

/** Newest first by start time; within one start time, the later recorded first. */
function newestFirst(traces: Trace[]): Trace[] {
  return traces
    .map((trace, index) => ({ trace, index }))
    .sort((a, b) => b.trace.startedAt - a.trace.startedAt || b.index - a.index)
    .map(({ trace }) => trace);
}

function done(kept: Trace[], limit: number, partial: boolean, pagesRead: number): TraceRead {
  return { traces: newestFirst(kept).slice(0, limit), partial, pagesRead };
}

/** `limit` traces are kept and no unread page (key ≤ `nextKeyMs`) can hold one newer than the oldest of them. */
function enough(kept: readonly Trace[], limit: number, nextKeyMs: number): boolean {
  if (kept.length < limit) return false;
  const oldestKept = newestFirst([...kept])[limit - 1] as Trace;
  return nextKeyMs < oldestKept.startedAt;
}

/** Epoch ms of a page key `2026-11-26T00:17:07.123Z#<instance>#<n>`. */
function keyTime(key: string): number {
  const time = Date.parse(key.slice(0, key.indexOf('#')));
  return Number.isFinite(time) ? time : Number.POSITIVE_INFINITY;
}

function pageTraces(doc: string | undefined): readonly Trace[] {
  if (doc === undefined) return [];
  try {
    const page = JSON.parse(doc) as { traces?: unknown };
    return Array.isArray(page.traces) ? (page.traces as Trace[]) : [];
  } catch {
    // A page the router did not write whole: its traces cannot be read.
    return [];
  }
}

function traceFilter(query: TraceQuery): (trace: Trace) => boolean {
  const benchmark = query.benchmark ?? 'exclude';
  return (trace) => {
    if (benchmark === 'exclude' && trace.benchmarkRunId !== undefined) return false;
    if (typeof benchmark === 'object' && trace.benchmarkRunId !== benchmark.runId) return false;
    if (query.model !== undefined && trace.requestedModel !== query.model && trace.servedModel !== query.model)
      return false;
    if (query.nodeId !== undefined && trace.nodeId !== query.nodeId) return false;
    if (query.status !== undefined && trace.status !== query.status) return false;
    return query.tag === undefined || trace.tags.includes(query.tag);
  };
}
