/**
 * Serves one routed chat or generate request end to end: dispatch (rank, queue, retry, fall back),
 * relay the node's NDJSON through the family's output as it comes — with back-pressure, stopping the
 * node at once when the client leaves — release the queue slot when the stream ends, and write the
 * trace whatever happened (completed, failed, client_disconnected, incomplete).
 */

import { RouterError, toRouterError, UpstreamError, withHeaders } from '../../core/errors';
import { nodeBrokeOff } from '../../core/fleet/node-failure';
import { merged } from '../../core/merged';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { createNdjsonDecoder } from '../../core/stream/ndjson-decoder';
import { nodeErrorText } from '../../core/wire/node-error-text';
import { getServices } from '../../instance';
import type { RequestStyle, Trace, TraceStatus } from '../../services/analytics/trace';
import { dispatchTraced } from '../../services/dispatch/dispatch-request';
import type { DispatchResult } from '../../services/dispatch/dispatcher';
import { fleetHeaders } from '../../services/dispatch/fleet-headers';
import { createRequestTrace, routedTraceFields, type TraceFn, traceError } from '../../services/dispatch/request-trace';
import type { NodeTransport } from '../../services/dispatch/transport';
import type { WireFamily } from '../../services/http/family';
import { renderError } from '../../services/http/render-error';
import { JSON_TYPE } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { readNodeBody } from '../../services/node-client/node-stream';
import { openChatStream } from '../../services/node-client/open-chat-stream';
import { attemptContext, contextHeaders, withPlannedContext } from './attempt-context';
import type { ChatOutput } from './chat-output';

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
  readonly nodePath: '/api/chat' | '/api/generate';
  /** The body for the node, naming the model as that node has it. */
  nodeBody(model: string): unknown;
  output(servedModel: string): ChatOutput<Chunk>;
}

const MAX_LINE_BYTES = 16 * 1024 * 1024;
const JSON_CONTENT = { 'content-type': JSON_TYPE };

export async function serveChat<Chunk>(input: ServeChatInput<Chunk>): Promise<void> {
  const { request, response, routing } = input;
  const startedAt = Date.now();
  const trace = createRequestTrace({
    request,
    style: input.style,
    requestedModel: input.requestedModel ?? routing.model,
    tags: input.tags,
    startedAt,
  });
  // The node request listens for the client leaving on the sink's cheap emitter (same moment as the signal).
  const { firstByteTimeoutMs } = getServices().config;
  const send: NodeTransport = (attempt) => {
    const body = input.nodeBody(attempt.model);
    const plan = attemptContext(routing, body, attempt.placement);
    return openChatStream(
      attempt.node.url,
      input.nodePath,
      withPlannedContext(body, plan),
      response.clientGone,
      firstByteTimeoutMs,
    );
  };
  const result = await dispatchTraced(routing, send, response.clientGone, trace, request.requestId);
  await relay(input, result, startedAt, trace);
}

async function relay<Chunk>(input: ServeChatInput<Chunk>, result: DispatchResult, startedAt: number, trace: TraceFn) {
  const { response, routing } = input;
  const { reply, decision, slot, attempt } = result;
  // Context protection as the served attempt had it (./attempt-context): pure and cheap, so worked out again.
  const plan = attemptContext(routing, input.nodeBody(attempt.model), attempt.placement);
  const headers = merged<Record<string, string>>(input.headers, fleetHeaders(decision), contextHeaders(routing, plan));
  const routed = merged<Partial<Trace>>(
    routedTraceFields(decision),
    plan !== undefined ? { context: plan.description } : undefined,
  );
  const sentAfterMs = result.sentAt - startedAt;

  if (reply.status >= 400) {
    const message = await answerNodeRefusal(
      input,
      reply.status,
      await readNodeBody(reply).catch(() => Buffer.alloc(0)),
      headers,
    );
    response.noteFailure({
      outcome: 'failed',
      status: reply.status,
      message,
      nodeId: decision.nodeId,
      model: decision.servedModel,
    });
    slot.release('failed');
    trace({ status: 'failed', ...routed, error: `node answered ${reply.status}` });
    return;
  }

  const output = input.output(decision.servedModel);
  const decoder = createNdjsonDecoder({ maxLineBytes: MAX_LINE_BYTES });
  // The node request already stops when the client leaves (the transport watches the same emitter):
  // the relay only checks `aborted` to stop writing.
  const signal = response.clientGone;
  let timeToFirstTokenMs: number | undefined;
  /**
   * The client's bytes for the node's lines, kept in `unsent` until `sendUnsent`: one write per node
   * chunk, none while an answer is collected. A bad line stops the loop, but what its chunk held before
   * it is still the client's, and goes out ahead of the in-band error.
   */
  let unsent = '';
  const consume = (lines: ReturnType<typeof decoder.push>): void => {
    for (const line of lines) {
      const parsed = output.parseLine(line);
      if (!parsed.ok) throw parsed.error;
      timeToFirstTokenMs ??= Date.now() - startedAt;
      unsent += output.push(parsed.chunk, line.raw);
    }
  };
  const sendUnsent = async (): Promise<void> => {
    if (unsent === '') return;
    const bytes = unsent;
    unsent = '';
    await response.write(bytes);
  };

  let status: TraceStatus = 'completed';
  let failure: RouterError | undefined;
  try {
    if (output.streaming) {
      response.start({
        statusCode: 200,
        headers: merged<Record<string, string>>(headers, streamHeaders(output.contentType)),
      });
    }
    // An output that may have its whole answer before the node ends reads line by line even when the
    // client wants one answer (the node streams then), so the node stops as soon as the answer is whole.
    if (output.streaming || output.satisfied !== undefined) {
      const body = reply.body[Symbol.asyncIterator]();
      let read = 0;
      for (;;) {
        const next = await body.next().catch((error: unknown) => {
          throw signal.aborted ? error : nodeBrokeOff(decision.nodeId, error);
        });
        if (next.done === true) break;
        read += next.value.length;
        if (!output.streaming && read > MAX_LINE_BYTES)
          throw new UpstreamError(`the node's reply is larger than ${MAX_LINE_BYTES} bytes`);
        consume(decoder.push(next.value));
        await sendUnsent();
        // The client has its whole answer (its visible budget is spent): the node is cancelled below.
        if (signal.aborted || output.satisfied?.() === true) break;
      }
    } else {
      // One answer, read whole: no per-chunk turn of the loop for what is usually a single chunk.
      let whole: Buffer;
      try {
        whole = await readNodeBody(reply, MAX_LINE_BYTES);
      } catch (error) {
        throw signal.aborted || error instanceof RouterError ? error : nodeBrokeOff(decision.nodeId, error);
      }
      consume(decoder.push(whole));
    }
    if (!signal.aborted) {
      // A node cut off mid-line leaves a partial line that is no error when its lines are no longer wanted.
      if (output.satisfied?.() !== true) consume(decoder.end());
      await sendUnsent();
      const end = output.end();
      if (output.streaming) await response.end(end.body);
      else {
        response.start({
          statusCode: 200,
          headers: merged<Record<string, string>>(headers, JSON_CONTENT, end.headers),
        });
        await response.end(end.body);
      }
    }
  } catch (error) {
    failure = toRouterError(error);
    if (!signal.aborted) {
      status = output.streaming ? 'incomplete' : 'failed';
      // Before the first byte: the error goes out with the chosen node's X-Fleet-* headers.
      if (!output.streaming) throw withHeaders(failure, headers);
      await sendUnsent();
      await response.write(output.fail(failure));
      await response.end();
    }
  } finally {
    if (signal.aborted) status = 'client_disconnected';
    reply.cancel();
    slot.release(status === 'completed' ? 'completed' : status === 'client_disconnected' ? 'cancelled' : 'failed');
    const { nodeFirstTokenMs, ...outcome } = output.outcome();
    // A one-object answer arrives whole: its first token came when the node says it did.
    if (!output.streaming)
      timeToFirstTokenMs = nodeFirstTokenMs === undefined ? undefined : sentAfterMs + nodeFirstTokenMs;
    // Starts with a plain property, never a spread (see lib/core/merged.ts): traces share hidden classes.
    trace({
      status,
      ...routed,
      ...outcome,
      ...(timeToFirstTokenMs !== undefined ? { timeToFirstTokenMs: Math.round(timeToFirstTokenMs) } : {}),
      ...(failure !== undefined && status !== 'client_disconnected' ? { error: traceError(failure) } : {}),
    });
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
  }
}

function streamHeaders(contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' };
}

/** A node's 4xx is the client's: its status and message, in the client's family shape. */
async function answerNodeRefusal<Chunk>(
  input: ServeChatInput<Chunk>,
  status: number,
  body: Buffer,
  headers: Record<string, string>,
): Promise<string> {
  // The node's own words for refusing (bounded): the client's to read, like Ollama's own 400s.
  const message = nodeErrorText(body) ?? `the node answered ${status}`;
  const rendered = renderError(
    input.family,
    new RouterError(status, message, { code: 'node_refused', retryable: false }),
  );
  input.response.start({
    statusCode: rendered.statusCode,
    headers: merged<Record<string, string>>(headers, rendered.headers),
  });
  await input.response.end(rendered.body);
  return message;
}
