/**
 * The store's own failures that a caller can act on (ARCHITECTURE.md §3.5: a failed write is retried,
 * never dropped). Everything else the SDK throws propagates untouched.
 */
import { RouterError } from '../../core/errors';
import type { DocItem } from './item';

/** SDK error names that mean "this request can never succeed as sent": retrying the same bytes is useless. */
const PERMANENT_ERROR_NAMES: ReadonlySet<string> = new Set(['ValidationException', 'SerializationException']);

export function isPermanentWriteError(error: unknown): boolean {
  return error instanceof Error && PERMANENT_ERROR_NAMES.has(error.name);
}

export interface BatchWriteOutcome {
  /** BatchWriteItem requests sent, re-sends included. */
  readonly requests: number;
  /** Re-sends of unprocessed items. */
  readonly retries: number;
  /** Items the table confirmed. */
  readonly written: number;
}

/**
 * Some items of a `batchPut` were not written. `unwritten` lists exactly those, so the caller can
 * queue them again; `retryable` is false when the table rejected the request as invalid.
 */
export class BatchWriteIncompleteError extends RouterError {
  readonly unwritten: readonly DocItem[];
  readonly outcome: BatchWriteOutcome;

  constructor(unwritten: readonly DocItem[], outcome: BatchWriteOutcome, cause: unknown) {
    const permanent = isPermanentWriteError(cause);
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(503, `${unwritten.length} item(s) were not written to the table: ${reason}`, {
      code: 'store_write_failed',
      retryable: !permanent,
      cause,
    });
    this.unwritten = unwritten;
    this.outcome = outcome;
  }
}
