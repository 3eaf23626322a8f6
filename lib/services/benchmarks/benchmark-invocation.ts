/**
 * The dashboard function's handler, also taking the benchmark invocations it starts itself
 * (./benchmark-launcher): an event `{"fleetBenchmark": {"runId"}}` runs that benchmark to the end within
 * the invocation; any other event is the HTTP handler's. The wrapper keeps what
 * `awslambda.streamifyResponse` marked on the handler (an own property), so AWS still streams, and ends
 * the response stream it is given for a benchmark event.
 */
import type { BenchmarkInvocationEvent } from './benchmark-launcher';

/** The run id of a benchmark invocation's event; undefined for any other event. */
export function benchmarkInvocationRunId(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const run: unknown = Reflect.get(event, 'fleetBenchmark' satisfies keyof BenchmarkInvocationEvent);
  const runId: unknown = typeof run === 'object' && run !== null ? Reflect.get(run, 'runId') : undefined;
  return typeof runId === 'string' ? runId : undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: a wrapper for either host's handler shape, whose types it keeps.
type AnyHandler = (event: any, ...rest: any[]) => Promise<any>;

export function withBenchmarkInvocations<H extends AnyHandler>(handler: H, run: (runId: string) => Promise<void>): H {
  const wrapped = async (event: unknown, ...rest: unknown[]) => {
    const runId = benchmarkInvocationRunId(event);
    if (runId === undefined) return handler(event, ...rest);
    await run(runId);
    const stream = rest[0];
    if (typeof stream === 'object' && stream !== null && 'end' in stream && typeof stream.end === 'function') {
      stream.end();
    }
    return undefined;
  };
  return Object.assign(wrapped, handler) as unknown as H;
}
