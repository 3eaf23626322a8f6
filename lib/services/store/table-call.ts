/**
 * How every request to the table is sent (issue 19 item 5): under a deadline of our own, so a table
 * that accepts connections and never answers costs a caller `timeoutMs` (the SDK's retries included),
 * never the SDK's 10 s socket time-out per attempt; and, when the table has vanished
 * (`ResourceNotFoundException`), after recreating it once rather than failing the same way forever.
 */
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

  return async (send) => {
    try {
      return await withDeadline(options.timeoutMs, undefined, send);
    } catch (error) {
      if (options.recreate === undefined || !isTableMissing(error)) throw error;
      await recreate(options.recreate);
      return await withDeadline(options.timeoutMs, undefined, send);
    }
  };
}
