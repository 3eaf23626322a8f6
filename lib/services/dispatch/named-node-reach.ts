/**
 * The reach (./reach) of work that picks its node itself — a model pull (spec §4.4 `POST /api/pull`:
 * `node_id` or the node the pull's own rule picks). No ranking, queue or retry: the work chooses the
 * node, takes what it holds while the node works on it (a pull: its table lock, in place of a queue
 * slot), then sends; the exchange (./routed-exchange) gives the hold back when it ends. The trace names
 * the node and the model and keeps the error the client was told; an error goes out without
 * `X-Fleet-*` headers (no routing decision was made).
 */
import { toRouterError } from '../../core/errors';
import type { NodeView } from '../../core/fleet/node';
import type { AbortSource } from '../../core/stream/abort-source';
import type { NodeReply } from '../node-client/node-reply';
import type { ExchangeRequest, Reach, Reached } from './reach';
import type { TraceFieldsBuilder, TraceFn } from './request-trace';
import type { ExchangeDeps } from './routed-exchange';

/** What the work holds on its node until the exchange ends. */
export interface Hold {
  /** Gives it back; never rejects (a failure to give it back is the holder's to log). */
  release(): Promise<void>;
}

export interface NamedNodeInput extends ExchangeRequest {
  /** The model the work is about: the trace's served model. */
  readonly model: string;
  /** The work's own choice of node; throws the work's refusal when there is none (a pull: 404, 503). */
  choose(): NodeView;
  /** Takes what the work holds while it runs on `node`; throws when it cannot have it (a pull: 409). */
  hold(node: NodeView): Promise<Hold>;
  /** Sends the work to `node`; resolves when the reply's headers arrive. */
  send(node: NodeView, signal: AbortSource): Promise<NodeReply>;
}

export interface NamedNodeServed extends Reached {
  readonly node: NodeView;
  readonly model: string;
  readonly hold: Hold;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Chooses, holds, sends; a failure on the way gives the hold back, then is traced and rethrown. */
async function open(_deps: unknown, input: NamedNodeInput, trace: TraceFn | undefined): Promise<NamedNodeServed> {
  let node: NodeView | undefined;
  try {
    node = input.choose();
    const hold = await input.hold(node);
    try {
      const reply = await input.send(node, input.signal);
      return { reply, node, model: input.model, hold };
    } catch (error) {
      await hold.release();
      throw error;
    }
  } catch (error) {
    const failure = toRouterError(error);
    const fields: TraceFieldsBuilder = { status: input.signal.aborted ? 'client_disconnected' : 'failed' };
    if (node !== undefined) {
      fields.nodeId = node.id;
      fields.servedModel = input.model;
    }
    fields.error = failure.message;
    trace?.(fields);
    throw failure;
  }
}

export const namedNode: Reach<Pick<ExchangeDeps, 'traces'>, NamedNodeInput, NamedNodeServed> = {
  open,
  release: (served) => served.hold.release(),
  traceFields: (served, status) => ({ status, nodeId: served.node.id, servedModel: served.model }),
  errorHeaders: () => NO_HEADERS,
  traceError: (error) => error.message,
};
