/**
 * The first step of a routed exchange (./routed-exchange, ARCHITECTURE.md §4), and what the rest of
 * the exchange needs to know about it: how a request reaches a node that answers, what is held on that
 * node until the exchange ends, and how the trace and an error's headers name where it went. Two reaches
 * exist: the dispatcher's (`dispatched` in ./routed-exchange: rank, queue slot, retry, fall back), for
 * every routed kind of work, and a node the work names itself (./named-node-reach: a model pull, which
 * holds its table lock instead of a queue slot). A reach is a constant object, so choosing one costs a
 * request nothing. Pure types.
 */

import type { TraceStatus } from '../../core/analytics/trace-record';
import type { RouterError } from '../../core/errors';
import type { NodeObservation } from '../../core/scoring/observed-rates';
import type { AbortSource } from '../../core/stream/abort-source';
import type { NodeReply } from '../node-client/node-reply';
import type { SlotOutcome } from './queue-manager';
import type { TracedRequest, TraceFieldsBuilder, TraceFn } from './request-trace';

/**
 * How an exchange ended for the node it held: a slot's outcome, or `broke-off` — the node cut its reply
 * mid-way (a reset, a crash), its failure as much as a 5xx, which outlier ejection counts (./dispatcher).
 */
export type ExchangeOutcome = SlotOutcome | 'broke-off';

/** What every exchange is given, whatever reaches its node. */
export interface ExchangeRequest {
  /** The client leaving: stops reaching for the node and the node request. */
  readonly signal: AbortSource;
  /** The client request this exchange answers, for its trace; absent for the router's own calls. */
  readonly traced?: TracedRequest | undefined;
}

/** A node reached: its reply, whose headers are in. A reach's own shape adds what it holds. */
export interface Reached {
  readonly reply: NodeReply;
}

/**
 * How an exchange reaches its node (`D`: what it needs of the instance, `I`: of the request, `S`: what
 * it hands the exchange's caller).
 */
export interface Reach<D, I extends ExchangeRequest, S extends Reached> {
  /**
   * Resolves once a node answered, holding it. A failure on the way leaves the request's trace (through
   * `trace`: `failed`, or `client_disconnected` when the client left) and rejects with a `RouterError`.
   * `traceparent`, where spans are exported, names the request's span for the node's request.
   */
  open(deps: D, input: I, trace: TraceFn | undefined, traceparent?: string): Promise<S>;
  /**
   * Gives back what `open` holds, by how the exchange ended, with what the node reported of its work
   * (its counts and durations, which the scorer learns its rates from); a promise when that takes a while.
   */
  release(served: S, outcome: ExchangeOutcome, observation?: NodeObservation): Promise<void> | undefined;
  /** What the trace says about where the request went, under `status`: a new object the exchange adds to. */
  traceFields(served: S, status: TraceStatus): TraceFieldsBuilder;
  /** The headers an error carries once a node was reached. */
  errorHeaders(served: S): Readonly<Record<string, string>>;
  /** A failure as the trace keeps it. */
  traceError(error: RouterError): string;
}
