/**
 * A node's `/api/chat` stream → OpenAI Responses stream events (protocols §2.3 → §4.3). A synchronous
 * state machine: `push` one parsed node line, get the events to write (each encoded with
 * `encodeResponsesEvent`).
 * - The stream opens with `response.created` and `response.in_progress` (`start()`, or the first `push`),
 *   both carrying the response object with `status: "in_progress"`, `output: []`, `usage: null`.
 * - Output items come one at a time, each `response.output_item.added` … `response.output_item.done`
 *   at the next `output_index`, as OpenAI sends them (the events of each kind: `responses-item-events.ts`):
 *   thinking opens a `reasoning` item, text a `message` item, and a change of kind closes the open one.
 *   Ollama sends each tool call whole, so each becomes a complete `function_call` (or `custom_tool_call`)
 *   item at once.
 * - The node's `done: true` line closes the open item, adds an empty message when the reply had neither
 *   text nor calls, and ends with `response.completed`, or `response.incomplete` on a budget cut, whose
 *   object — output, status, usage — is what `toResponsesResponse` gives for the same lines accumulated.
 *   (A node that goes back to thinking after text, or to text after a call, gets one item per run here,
 *   where the accumulated reply has one of each; Ollama's parsers emit thinking, text, calls in order.)
 * - Every event has `sequence_number`: 0, 1, 2, … over the whole stream.
 * - `end()` after the node's stream closed without `done: true` throws an `UpstreamError`; `fail()` then
 *   gives the in-band report (ARCHITECTURE.md §9.4): an `error` event (openai-node throws on it) and, once the
 *   stream has opened, `response.failed` with the output so far (the open item `incomplete`) and
 *   `error: {code, message}` — so a cut stream never looks complete. After `done` or `fail`, further
 *   lines are ignored.
 * Pure.
 */
import { type RouterError, UpstreamError } from '../../errors';
import { errorBody } from '../../wire/error-body';
import type { OllamaChatChunk, OllamaChatChunkToolCall } from '../../wire/ollama';
import { openAIErrorBodySchema } from '../../wire/openai';
import type { ResponsesError, ResponsesOutputItem } from '../../wire/responses';
import { responsesToolIndex } from './from-responses-tools';
import { mapResponsesStatus } from './map-responses-status';
import { inProgressEnvelope, type ResponsesContext, responsesEnvelope } from './responses-envelope';
import {
  callItemEvents,
  type ItemPlace,
  type TextItemKind,
  textDeltaEvent,
  textItem,
  textItemAddedEvents,
  textItemDoneEvents,
} from './responses-item-events';
import { outputItemId } from './responses-item-ids';
import type { ResponsesStreamEvent } from './responses-stream-event';
import { argumentsText, toResponsesCallItem } from './to-responses-call-item';
import { toResponsesUsage } from './to-responses-usage';

export interface ResponsesStreamConverter {
  /** `response.created` and `response.in_progress`; nothing once the stream has opened. */
  start(): ResponsesStreamEvent[];
  push(chunk: OllamaChatChunk): ResponsesStreamEvent[];
  /** Throws `UpstreamError` when the node's stream ended before its `done: true` line. */
  end(): ResponsesStreamEvent[];
  fail(error: RouterError): ResponsesStreamEvent[];
}

/** The item whose text is streaming. */
interface OpenText extends ItemPlace {
  readonly kind: TextItemKind;
  text: string;
}

/** `response.failed` carries one of the codes openai-node types for `error.code`. */
function failedError(error: RouterError): ResponsesError {
  const code = error.status === 429 ? 'rate_limit_exceeded' : error.status < 500 ? 'invalid_prompt' : 'server_error';
  return { code, message: error.message };
}

/** @see protocols.md §4.3 */
export function createResponsesStreamConverter(context: ResponsesContext): ResponsesStreamConverter {
  const tools = responsesToolIndex(context.request);
  const output: ResponsesOutputItem[] = [];
  const lengths = { thinking: 0, output: 0 };
  let state: 'idle' | 'open' | 'done' | 'failed' = 'idle';
  let sequence = 0;
  let events: ResponsesStreamEvent[] = [];
  let open: OpenText | undefined;
  let calls = 0;
  let wroteText = false;

  const next = (): number => sequence++;
  function flush(): ResponsesStreamEvent[] {
    const written = events;
    events = [];
    return written;
  }

  function begin(): void {
    if (state !== 'idle') return;
    state = 'open';
    events.push(
      { type: 'response.created', sequence_number: next(), response: inProgressEnvelope(context) },
      { type: 'response.in_progress', sequence_number: next(), response: inProgressEnvelope(context) },
    );
  }

  function appendText(kind: TextItemKind, delta: string): void {
    if (open?.kind !== kind) {
      close('completed');
      const index = output.length;
      open = { kind, id: outputItemId(kind === 'reasoning' ? 'rs' : 'msg', context.id, index), index, text: '' };
      if (kind === 'message') wroteText = true;
      events.push(...textItemAddedEvents(kind, open, next));
    }
    open.text += delta;
    if (delta !== '') events.push(textDeltaEvent(kind, open, delta, next));
  }

  /** Closes the open item, a message with `status`. */
  function close(status: 'completed' | 'incomplete'): void {
    if (open === undefined) return;
    const item = textItem(open.kind, open, open.text, status);
    events.push(...textItemDoneEvents(item, open.index, next));
    output.push(item);
    open = undefined;
  }

  function pushCall(call: OllamaChatChunkToolCall): void {
    close('completed');
    const index = output.length;
    const item = toResponsesCallItem(call, {
      responseId: context.id,
      outputIndex: index,
      callIndex: calls,
      tools,
    });
    calls += 1;
    lengths.output += argumentsText(call.function.arguments).length;
    events.push(...callItemEvents(item, index, next));
    output.push(item);
  }

  function finish(line: OllamaChatChunk): void {
    const status = mapResponsesStatus(line.done_reason);
    const itemStatus = status === 'incomplete' ? 'incomplete' : 'completed';
    // A reply with neither text nor calls still answers with a message, as `toResponsesResponse` does.
    if (!wroteText && calls === 0) appendText('message', '');
    close(itemStatus);
    const response = responsesEnvelope(context, {
      status,
      output: [...output],
      usage: toResponsesUsage(line, lengths),
      completedAt: context.now(),
    });
    const type = status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    events.push({ type, sequence_number: next(), response });
    state = 'done';
  }

  function start(): ResponsesStreamEvent[] {
    begin();
    return flush();
  }

  function push(line: OllamaChatChunk): ResponsesStreamEvent[] {
    if (state === 'done' || state === 'failed') return [];
    begin();
    const thinking = line.message?.thinking ?? '';
    if (thinking !== '') {
      lengths.thinking += thinking.length;
      appendText('reasoning', thinking);
    }
    const content = line.message?.content ?? '';
    if (content !== '') {
      lengths.output += content.length;
      appendText('message', content);
    }
    for (const call of line.message?.tool_calls ?? []) pushCall(call);
    if (line.done === true) finish(line);
    return flush();
  }

  function end(): ResponsesStreamEvent[] {
    if (state === 'idle' || state === 'open')
      throw new UpstreamError('the node closed the stream before its final line');
    return [];
  }

  function fail(error: RouterError): ResponsesStreamEvent[] {
    if (state === 'done' || state === 'failed') return [];
    // The same body `renderError` sends before the first byte; parsed to its type, not cast.
    const body = openAIErrorBodySchema.parse(errorBody('openai', error)).error;
    events.push({ type: 'error', sequence_number: next(), code: body.code, message: body.message, param: body.param });
    if (state === 'open') {
      const partial = open === undefined ? [] : [textItem(open.kind, open, open.text, 'incomplete')];
      const response = responsesEnvelope(context, {
        status: 'failed',
        output: [...output, ...partial],
        usage: null,
        error: failedError(error),
        completedAt: null,
      });
      events.push({ type: 'response.failed', sequence_number: next(), response });
    }
    state = 'failed';
    open = undefined;
    return flush();
  }

  return { start, push, end, fail };
}
