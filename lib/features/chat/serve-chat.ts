/**
 * Serves one routed chat or generate request end to end through the routed exchange
 * (lib/services/dispatch/routed-exchange: dispatch, slot, trace once): the node's NDJSON goes through the
 * family's output as it comes — relayed by the one relay (lib/services/http/relay-stream) with
 * back-pressure, stopping the node at once when the client leaves — or is read whole for a one-object
 * answer; a node's 4xx is answered in the client's family shape. The trace says completed, failed,
 * client_disconnected or incomplete, with the tokens, finish reason and time to first token.
 */

import type { RequestStyle, Trace } from '../../core/analytics/trace-record';
import type { ContextPlan } from '../../core/context/plan-context';
import { RouterError, toRouterError, UpstreamError, withHeaders } from '../../core/errors';
import { nodeBrokeOff } from '../../core/fleet/node-failure';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { nodeErrorText } from '../../core/wire/node-error-text';
import type { DispatchResult } from '../../services/dispatch/dispatcher';
import { fleetHeaders } from '../../services/dispatch/fleet-headers';
import { traceError } from '../../services/dispatch/request-trace';
import { type ExchangeDeps, type ExchangeEnd, routedExchange } from '../../services/dispatch/routed-exchange';
import type { NodeTransport } from '../../services/dispatch/transport';
import type { WireFamily } from '../../services/http/family';
import { relayStream } from '../../services/http/relay-stream';
import { renderError } from '../../services/http/render-error';
import { JSON_TYPE } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { readNodeBody } from '../../services/node-client/node-stream';
import { openChatStream } from '../../services/node-client/open-chat-stream';
import { attemptContext, contextHeaders, withPlannedContext } from './attempt-context';
import { ChatConverter, MAX_LINE_BYTES } from './chat-converter';
import type { ChatOutcome, ChatOutput } from './chat-output';

/** What serving a routed chat needs: the exchange's, and the node's first-byte deadline. */
export interface ServeChatDeps extends ExchangeDeps {
  readonly config: { readonly firstByteTimeoutMs: number };
}

export interface ServeChatInput<Chunk> {
  readonly request: HttpRequest;
  readonly response: ResponseSink;
  readonly style: RequestStyle;
  readonly family: WireFamily;
  readonly routing: RoutingRequest;
  /** The model as the client named it, for the trace, when the route resolved it to `routing.model`. */
  readonly requestedModel?: string;
  /** More headers for the reply, before the `X-Fleet-*` ones (which win). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly tags: readonly string[];
  /** How long the route waited for the table's fleet read before serving (the trace's `tableWaitMs`). */
  readonly tableWaitMs?: number | undefined;
  readonly nodePath: '/api/chat' | '/api/generate';
  /** The body for the node, naming the model as that node has it. */
  nodeBody(model: string): unknown;
  output(servedModel: string): ChatOutput<Chunk>;
}

const JSON_CONTENT = { 'content-type': JSON_TYPE };

/** The reply's headers by source, merged once, with what the reply adds, when the reply starts. */
interface HeaderParts {
  readonly own: Readonly<Record<string, string>> | undefined;
  /** `X-Fleet-*`: they win over the route's own. */
  readonly fleet: Readonly<Record<string, string>>;
  readonly context: Readonly<Record<string, string>>;
}

/** One object of every part and up to two more sources (later wins): no intermediate merge per request. */
function replyHeaders(
  parts: HeaderParts,
  more?: Readonly<Record<string, string>>,
  last?: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.assign({}, parts.own, parts.fleet, parts.context, more, last);
}

export function serveChat<Chunk>(deps: ServeChatDeps, input: ServeChatInput<Chunk>): Promise<void> {
  const { response, routing } = input;
  // The node request listens for the client leaving on the sink's cheap emitter (same moment as the signal).
  const firstByteTimeoutMs = deps.config.firstByteTimeoutMs;
  // The context plan of the attempt sent last: the served attempt is always the last one sent.
  let plan: ContextPlan | undefined;
  const send: NodeTransport = (attempt, _signal, traceparent) => {
    const body = input.nodeBody(attempt.model);
    plan = attemptContext(routing, body, attempt.placement);
    return openChatStream(
      attempt.node.url,
      input.nodePath,
      withPlannedContext(body, plan),
      response.clientGone,
      firstByteTimeoutMs,
      traceparent,
    );
  };
  return routedExchange(deps, { routing, send, signal: response.clientGone, traced: input }, (served, startedAt) =>
    settleChat(input, served, plan, startedAt),
  );
}

/** Answers the served reply: the node's refusal, a relayed stream, or one body read whole. */
async function settleChat<Chunk>(
  input: ServeChatInput<Chunk>,
  served: DispatchResult,
  plan: ContextPlan | undefined,
  startedAt: number,
): Promise<ExchangeEnd<void>> {
  const { response, routing } = input;
  const { reply, decision } = served;
  const headers: HeaderParts = {
    own: input.headers,
    fleet: fleetHeaders(decision),
    context: contextHeaders(routing, plan),
  };
  const context = plan !== undefined ? plan.description : undefined;

  if (reply.status >= 400) {
    const body = await readNodeBody(reply).catch(() => Buffer.alloc(0));
    const message = await answerNodeRefusal(input, reply.status, body, headers);
    response.noteFailure({
      outcome: 'failed',
      status: reply.status,
      message,
      nodeId: decision.nodeId,
      model: decision.servedModel,
    });
    const error = `node answered ${reply.status}`;
    return { status: 'failed', value: undefined, fields: context !== undefined ? { context, error } : { error } };
  }

  const output = input.output(decision.servedModel);
  const converter = new ChatConverter(output);
  const gone = response.clientGone;
  let status: ExchangeEnd<void>['status'];
  let failure: RouterError | undefined;
  let rethrow: RouterError | undefined;
  if (output.streaming) {
    response.start({
      statusCode: 200,
      headers: replyHeaders(headers, streamHeaders(output.contentType)),
    });
    const relayed = await relayStream(response, reply, converter, {
      brokeOff: (error) => nodeBrokeOff(decision.nodeId, error),
    });
    status = relayed.status;
    failure = relayed.failure;
  } else {
    try {
      await answerWhole(input, served, converter, headers);
      status = gone.aborted ? 'client_disconnected' : 'completed';
    } catch (error) {
      failure = toRouterError(error);
      status = gone.aborted ? 'client_disconnected' : 'failed';
      // Before the first byte: the error goes out with the chosen node's X-Fleet-* headers.
      if (!gone.aborted) rethrow = withHeaders(failure, replyHeaders(headers));
    }
  }
  // What went out failed without a throw: noted for the operator's one line about the request.
  if (status === 'incomplete' || status === 'client_disconnected') {
    response.noteFailure({
      outcome: status,
      status: 200,
      nodeId: decision.nodeId,
      model: decision.servedModel,
      ...(failure !== undefined ? { message: failure.message } : {}),
      ...(failure?.detail !== undefined ? { detail: failure.detail } : {}),
    });
  }
  return {
    status,
    value: undefined,
    fields: traceFields(output, converter, served, startedAt, context, status, failure, routing.promptTokens),
    rethrow,
  };
}

/**
 * What the trace adds to the routing: context, tokens and finish reason, TTFT, the error, and the
 * router's prompt estimate beside the tokens the node evaluated (the rollups' prompt-cache share).
 */
function traceFields<Chunk>(
  output: ChatOutput<Chunk>,
  converter: ChatConverter<Chunk>,
  served: DispatchResult,
  startedAt: number,
  context: string | undefined,
  status: ExchangeEnd<void>['status'],
  failure: RouterError | undefined,
  promptEstimateTokens: number | undefined,
): Partial<Trace> {
  const outcome = output.outcome();
  const { nodeFirstTokenMs } = outcome;
  // Set one by one, not spread or rest-destructured: see lib/core/merged.ts (a `{ x, ...rest }` pattern
  // here cost as much as writing the whole trace's JSON).
  const fields: { -readonly [K in keyof Trace]?: Trace[K] } = {};
  if (context !== undefined) fields.context = context;
  if (outcome.promptTokens !== undefined) fields.promptTokens = outcome.promptTokens;
  if (outcome.completionTokens !== undefined) fields.completionTokens = outcome.completionTokens;
  if (outcome.finishReason !== undefined) fields.finishReason = outcome.finishReason;
  if (outcome.loadMs !== undefined) fields.loadMs = outcome.loadMs;
  if (outcome.cachedTokens !== undefined) fields.cachedTokens = outcome.cachedTokens;
  if (outcome.promptEvalMs !== undefined) fields.promptEvalMs = Math.round(outcome.promptEvalMs * 1000) / 1000;
  if (outcome.evalMs !== undefined) fields.evalMs = Math.round(outcome.evalMs * 1000) / 1000;
  if (promptEstimateTokens !== undefined) fields.promptEstimateTokens = promptEstimateTokens;
  // A one-object answer arrives whole: its first token came when the node says it did.
  const timeToFirstTokenMs = output.streaming
    ? converter.firstLineAt === undefined
      ? undefined
      : converter.firstLineAt - startedAt
    : nodeFirstTokenMs === undefined
      ? undefined
      : served.sentAt - startedAt + nodeFirstTokenMs;
  if (timeToFirstTokenMs !== undefined) fields.timeToFirstTokenMs = Math.round(timeToFirstTokenMs);
  if (failure !== undefined && status !== 'client_disconnected') {
    fields.error = traceError(failure);
    fields.errorCode = failure.code;
  }
  return fields;
}

/** Every outcome field but the node's own TTFT goes into the trace as it is: a new one must be copied above. */
type CopiedOutcome =
  | 'promptTokens'
  | 'completionTokens'
  | 'finishReason'
  | 'loadMs'
  | 'cachedTokens'
  | 'promptEvalMs'
  | 'evalMs';
const outcomeCopied: Exclude<keyof ChatOutcome, CopiedOutcome | 'nodeFirstTokenMs'> extends never ? true : never = true;
void outcomeCopied;

/**
 * One answer for the client. An output that may have its whole answer before the node ends reads line by
 * line (the node streams then), so the node stops as soon as the answer is whole; any other reads the
 * node's one object whole, with no per-chunk turn of the loop.
 */
async function answerWhole<Chunk>(
  input: ServeChatInput<Chunk>,
  served: DispatchResult,
  converter: ChatConverter<Chunk>,
  headers: HeaderParts,
): Promise<void> {
  const { reply, decision } = served;
  const gone = input.response.clientGone;
  if (converter.done !== undefined) {
    const body = reply.body[Symbol.asyncIterator]();
    let read = 0;
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await body.next();
      } catch (error) {
        throw gone.aborted ? error : nodeBrokeOff(decision.nodeId, error);
      }
      if (next.done === true) break;
      read += next.value.length;
      if (read > MAX_LINE_BYTES) throw new UpstreamError(`the node's reply is larger than ${MAX_LINE_BYTES} bytes`);
      converter.push(next.value);
      // The client has its whole answer (its visible budget is spent): the node is cancelled after.
      if (gone.aborted || converter.done() === true) break;
    }
  } else {
    let whole: Buffer;
    try {
      whole = await readNodeBody(reply, MAX_LINE_BYTES);
    } catch (error) {
      throw gone.aborted || error instanceof RouterError ? error : nodeBrokeOff(decision.nodeId, error);
    }
    converter.push(whole);
  }
  if (gone.aborted) return;
  const end = converter.finish();
  input.response.start({
    statusCode: 200,
    headers: replyHeaders(headers, JSON_CONTENT, end.headers),
  });
  await input.response.end(end.body);
}

function streamHeaders(contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };
}

/** A node's 4xx is the client's: its status and message, in the client's family shape. */
async function answerNodeRefusal<Chunk>(
  input: ServeChatInput<Chunk>,
  status: number,
  body: Buffer,
  headers: HeaderParts,
): Promise<string> {
  // The node's own words for refusing (bounded): the client's to read, like Ollama's own 400s.
  const message = nodeErrorText(body) ?? `the node answered ${status}`;
  const rendered = renderError(
    input.family,
    new RouterError(status, message, { code: 'node_refused', retryable: false }),
  );
  input.response.start({
    statusCode: rendered.statusCode,
    headers: replyHeaders(headers, rendered.headers),
  });
  await input.response.end(rendered.body);
  return message;
}
