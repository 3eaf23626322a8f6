/**
 * Request traces and usage (issue: traces and usage): every routed request — completed, failed,
 * retried (one trace per failed attempt that was retried elsewhere), client_disconnected, incomplete —
 * is written behind to the table with where it went and how it went, and adds to the day's usage
 * counters per node and model and per tag. Nothing here waits for the table (ARCHITECTURE.md §3.5) and
 * nothing is dropped: the write-behind queue retries until the table takes it.
 *
 * A trace is recorded at once and written at the end of its turn of the event loop, with the others
 * recorded in that turn, or when the queue drains, whichever comes first. The router serves requests
 * from many connections per turn (about 20 at c=64), and their traces written one after another take
 * 8–11 µs each inside the running router, against 19–25 µs when each was written amid its own request:
 * the serialiser and the rollups' code and maps stay warm in the caches. A trace waits at most one turn,
 * so it still dies young, and nothing that drains can miss it.
 *
 * Traces are written in pages: the recorder copies each trace's JSON into the page filling up
 * (./trace-pages) and, whenever the queue drains (at least once a second, and before a Lambda
 * invocation ends), hands the write-behind one item per page of up to `maxPageBytes` —
 * `{"traces":[…]}` under `tracePageKey`. A request then costs a few hundred bytes in a page instead of
 * a table write of its own: at a thousand requests a second that is one or two writes a second, not
 * forty BatchWrites, and the AWS SDK's per-request work goes with them. No trace is lost to its size:
 * each is cut to its bounds first (./bounded-trace), so it fits a page and its usage keys fit the table.
 *
 * The rollups (issue 22 item 1) go out the same way: a trace is summed in memory into its group
 * (./rollup-accumulator, one Map lookup and a few adds), and when the queue drains, each rollup key the
 * second's traces touched gets one counter write (an `ADD` that also raises its maxima): a few dozen
 * writes a second however many requests, none of them on the request's path.
 *
 * Benchmark traffic (`benchmarkRunId` set, by the benchmark runner) is kept out of the users' analytics:
 * its traces are written to the pages like any other, and add nothing to any rollup. So are the changes to
 * the fleet (`CHANGE_STYLES`: pulls, deletes, copies, settings, benchmark start and cancel): a download
 * that takes minutes is no request to a model, and counted as one it would skew that model's latency and
 * make it look in use (recommendations, model management, health).
 */

import { CHANGE_STYLES, type Trace } from '../../core/analytics/trace-record';
import { EndOfTurn } from '../platform/end-of-turn';
import { causeText, logger } from '../platform/logger';
import type { DocItem } from '../store/item';
import { tracePageKey } from '../store/keys';
import type { ItemSource, WriteBehind } from '../store/write-behind';
import type { RequestSpan, SpanExport } from '../telemetry/span-export';
import { boundedTrace } from './bounded-trace';
import { createRollupAccumulator } from './rollup-accumulator';
import { TracePages } from './trace-pages';

/** Traces are kept 30 days; the TTL attribute lets DynamoDB reap them (reads filter expired ones). */
export const TRACE_RETENTION_SECONDS = 30 * 24 * 3600;

export interface TraceRecorder {
  /** Records `trace`; `span`: the request's span, when spans are exported (lib/services/telemetry/span-export). */
  record(trace: Trace, span?: RequestSpan): void;
  /**
   * Present when spans are exported (`OTEL_EXPORTER_OTLP_ENDPOINT`): opens the span of a request arriving
   * now, a child of the client's `traceparent` when it sent one.
   */
  readonly openSpan?: (traceparent: string | undefined) => RequestSpan;
}

/** `traces` that also end each request's span in `spans` (an OTLP export): every trace goes to both. */
export function withSpans(traces: TraceRecorder, spans: SpanExport): TraceRecorder {
  return {
    record(trace, span) {
      traces.record(trace);
      if (span !== undefined) spans.end(span, trace);
    },
    openSpan: (traceparent) => spans.open(traceparent),
  };
}

/** What a page item's `doc` holds. */
export interface TracePage {
  readonly traces: readonly Trace[];
}

export interface TraceRecorderOptions {
  /** This writer's id among the router's instances: page keys never collide across instances. */
  readonly instanceId: string;
  /** UTF-8 bytes of trace JSON per page, at most `MAX_PAGE_BYTES`. Default 256 KB. */
  readonly maxPageBytes?: number;
  /** Runs the write of a turn's traces at the end of that turn of the event loop. Default `setImmediate`. */
  readonly defer?: (write: () => void) => void;
}

/**
 * The largest page allowed: DynamoDB's item limit is 400 KB, keys and attribute names included, and a
 * page is stored deflated, which at worst adds 5 bytes per 16 KB block to what it cannot shrink. A page
 * of this many bytes of JSON leaves over 40 KB for all of that.
 */
export const MAX_PAGE_BYTES = 350 * 1024;

export function createTraceRecorder(
  queue: Pick<WriteBehind, 'addSource' | 'touch'>,
  options: TraceRecorderOptions,
): TraceRecorder {
  const maxPageBytes = options.maxPageBytes ?? 256 * 1024;
  if (maxPageBytes > MAX_PAGE_BYTES) throw new Error(`maxPageBytes ${maxPageBytes} is over ${MAX_PAGE_BYTES}`);
  const pages = new TracePages(maxPageBytes);
  const rollups = createRollupAccumulator();
  let sequence = 0;
  /** One trace into its page and, unless it is benchmark traffic or a change, its rollups. */
  const write = (raw: Trace): void => {
    const trace = boundedTrace(raw);
    pages.add(trace.startedAt, JSON.stringify(trace));
    if (trace.benchmarkRunId === undefined && !CHANGE_STYLES.has(trace.style)) rollups.add(trace);
  };
  // Recorded this turn of the event loop, written to the pages and rollups together at its end.
  const recorded = new EndOfTurn<Trace>((trace) => {
    try {
      write(trace);
    } catch (error) {
      // Not expected (every field is bounded); one bad trace must not cost the others their pages.
      logger().limited('trace-record', 'warn', 'a trace could not be written', { cause: causeText(error) });
    }
  }, options.defer);
  const source: ItemSource = {
    hasPending: () => recorded.pending || pages.hasPending() || rollups.hasPending(),
    drainCounters: () => {
      recorded.flush();
      return rollups.drain();
    },
    drain: () => {
      recorded.flush();
      return pages.take().map(
        ({ newestStartedAt, doc }): DocItem => ({
          ...tracePageKey(newestStartedAt, options.instanceId, sequence++),
          expiresAt: Math.floor(newestStartedAt / 1000) + TRACE_RETENTION_SECONDS,
          doc,
        }),
      );
    },
  };
  queue.addSource(source);

  return {
    record(trace) {
      if (recorded.add(trace)) queue.touch();
    },
  };
}
