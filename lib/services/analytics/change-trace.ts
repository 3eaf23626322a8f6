/**
 * The trace of a change to the fleet (issue 46): a delete, a copy, a settings write, a benchmark's start
 * or cancel leaves one trace, as a pull does (lib/features/pull), so a deletion can be traced to the key
 * that made it (`key`, from the request's caller: lib/services/dispatch/request-trace) and to when and
 * where. Its status is `completed`, or `failed` with the client's words; the change's own error is
 * rethrown untouched. Changes are kept out of the rollups (`CHANGE_STYLES`, ./trace).
 */
import type { RequestStyle, Trace } from '../../core/analytics/trace-record';
import { toRouterError } from '../../core/errors';
import { createRequestTrace, traceError } from '../dispatch/request-trace';
import type { HttpRequest } from '../http/request';
import type { TraceRecorder } from './trace';

export interface ChangeInput {
  readonly request: HttpRequest;
  readonly style: RequestStyle;
  /** The model changed, for a delete or a copy (the copy's source); none for settings and benchmarks. */
  readonly model?: string | undefined;
}

/** What the trace says of a change that ran to its end: `failed` with `error` when it failed in part. */
export interface ChangeOutcome {
  readonly nodes?: readonly string[] | undefined;
  readonly error?: string | undefined;
}

/**
 * Runs `change` and traces it; `outcome` reads from its value which nodes it reached and whether it
 * failed on some (a 502 naming nodes is answered, not thrown).
 */
export async function tracedChange<T>(
  traces: TraceRecorder,
  input: ChangeInput,
  change: () => Promise<T>,
  outcome: (value: T) => ChangeOutcome = () => ({}),
): Promise<T> {
  const trace = createRequestTrace(traces, {
    request: input.request,
    style: input.style,
    requestedModel: input.model ?? '',
    tags: [],
  });
  let value: T;
  try {
    value = await change();
  } catch (error) {
    trace({ status: 'failed', error: traceError(toRouterError(error)) });
    throw error;
  }
  const { nodes, error } = outcome(value);
  const fields: Partial<Trace> = nodes === undefined || nodes.length === 0 ? {} : { nodeId: nodes.join(',') };
  trace(error === undefined ? { status: 'completed' } : { status: 'failed', error }, undefined, fields);
  return value;
}
