/**
 * How every request to the table is sent (issue 19 item 5): under a deadline of our own, so a table
 * that accepts connections and never answers costs a caller `timeoutMs` (the SDK's retries included),
 * never the SDK's 10 s socket time-out per attempt; and, when the table has vanished
 * (`ResourceNotFoundException`), after recreating it once rather than failing the same way forever.
 * A table that is out of reach — the deadline passed, the connection failed, the service throttled or
 * answered 5xx — fails the call with `StoreUnavailableError`, so a route that needed it answers 503 with
 * Retry-After in its family's shape, not a 500 of the router's own. The table's answers about the data
 * (a failed condition, a validation error) pass through as the SDK threw them.
 */
import { StoreUnavailableError } from '../../core/errors';
import { withDeadline } from '../../core/stream/deadline';

/** Sends one SDK request with the signal it must pass on (`client.send(command, { abortSignal })`). */
export type TableCall = <T>(send: (abortSignal: AbortSignal) => Promise<T>) => Promise<T>;

export interface TableCallOptions {
  /** Whole-call budget, SDK retries included. */
  readonly timeoutMs: number;
  /** Creates the table again (`ensureTable`); absent: a vanished table stays an error. */
  readonly recreate?: () => Promise<unknown>;
  readonly log?: (line: string) => void;
}

export function isTableMissing(error: unknown): boolean {
  return error instanceof Error && error.name === 'ResourceNotFoundException';
}

/** DynamoDB's answers that mean "not now" rather than "not this". */
const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
]);

/** Socket errors of a table that cannot be reached. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/** Whether `error` says the table is out of reach (see the header), as opposed to an answer about the data. */
export function isTableUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Our deadline aborts the SDK's request: it rejects with an AbortError (or the deadline's TimeoutError).
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return true;
  if (THROTTLED.has(error.name)) return true;
  const { $fault, $metadata, code } = error as Error & { $fault?: unknown; $metadata?: unknown; code?: unknown };
  if ($fault === 'server') return true;
  // The SDK wraps a failure with no answer at all (a refused or reset connection) in an error of its own,
  // with its attempts in `$metadata` and no `$fault`: every answer of the service carries one.
  if ($metadata !== undefined && $fault === undefined) return true;
  return typeof code === 'string' && UNREACHABLE.has(code);
}

function unavailableOr(error: unknown): unknown {
  return isTableUnavailable(error) ? new StoreUnavailableError(error) : error;
}

export function createTableCall(options: TableCallOptions): TableCall {
  const log = options.log ?? ((line: string) => console.error(line));
  let recreating: Promise<unknown> | undefined;

  // One recreation at a time, however many calls found the table missing together.
  const recreate = (create: () => Promise<unknown>): Promise<unknown> => {
    recreating ??= create()
      .then(() => log('table: it had vanished and was created again'))
      .finally(() => {
        recreating = undefined;
      });
    return recreating;
  };

  const sent = async <T>(send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await withDeadline(options.timeoutMs, undefined, send);
    } catch (error) {
      throw unavailableOr(error);
    }
  };

  return async (send) => {
    try {
      return await sent(send);
    } catch (error) {
      if (options.recreate === undefined || !isTableMissing(error)) throw error;
      await recreate(options.recreate);
      return await sent(send);
    }
  };
}
