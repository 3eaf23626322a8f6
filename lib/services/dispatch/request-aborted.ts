/**
 * The client went away (issue: routing items 2 and 3, "a client that goes away frees its slot / leaves
 * the queue at once"): what queue waits and dispatches reject with when the request's AbortSignal
 * fires. 499 (nginx's "client closed request") so logs and traces can tell it apart; nobody is left to
 * read the answer. Pure.
 */
import { RouterError } from '../../core/errors';

export class RequestAbortedError extends RouterError {
  constructor(message = 'the client closed the request') {
    super(499, message, { code: 'client_closed_request', retryable: false });
  }
}

export function throwIfAborted(signal: { readonly aborted: boolean } | undefined): void {
  if (signal?.aborted === true) throw new RequestAbortedError();
}
