/**
 * A node's `/api/chat` stream → Anthropic Messages stream events (protocols §2.3 → §6.4). A synchronous
 * state machine: `push` one parsed node line, get the events to write (each encoded with
 * `encodeAnthropicEvent`); the stream is complete at `message_stop`, there is no `[DONE]`.
 * - Exactly one `message_start` first (id and model given, `content: []`, `stop_reason: null`;
 *   `input_tokens` is the caller's estimate or 0 — the node counts the prompt only at the end, and
 *   `message_delta` carries its count, which the SDK puts over the start's).
 * - Content blocks get indices 0, 1, 2… in the order they start; one is open at a time. Thinking streams
 *   in a `thinking` block (`thinking_delta`), text in a `text` block (`text_delta`); a line of the other
 *   kind closes the open block and starts a new one. A thinking block starts with `signature: ""` and
 *   ends with a `signature_delta` (the router's signature of its text, `thinking-signature.ts`) before
 *   its `content_block_stop`, as Anthropic's stream does: clients keep only signed thinking.
 * - Ollama sends each tool call whole, so each becomes `content_block_start` (`input: {}`), one
 *   `input_json_delta` with the whole input and `content_block_stop`; ids as `toAnthropicToolUse` gives them.
 * - The node's `done: true` line closes the open block, adds an empty `text` block when the reply had
 *   neither text nor tool calls (so the stream's final message is exactly `toAnthropicMessage`'s), then
 *   `message_delta` (`stop_reason` and `stop_sequence` from `mapAnthropicStopReason`, cumulative `usage`)
 *   and `message_stop`.
 * - `end()` after the node's stream closed without `done: true` throws an `UpstreamError`, and `fail()`
 *   gives the `error` event (the body `renderError` sends before the first byte) to write instead, so a
 *   cut stream never looks complete: the SDK throws on it. After `message_stop` or `fail`, further lines
 *   give nothing; `ping()` gives a `ping` event while the stream is open.
 * Pure.
 */
import { type RouterError, UpstreamError } from '../../errors';
import {
  type AnthropicContentBlockDelta,
  type AnthropicErrorEvent,
  type AnthropicStreamEvent,
  anthropicErrorBodySchema,
} from '../../wire/anthropic';
import { errorBody } from '../../wire/error-body';
import type { OllamaChatChunk } from '../../wire/ollama';
import { longestStopSequence, mapAnthropicStopReason } from './map-anthropic-stop-reason';
import { type ThinkingSigner, thinkingSigner } from './thinking-signature';
import type { AnthropicMessageContext } from './to-anthropic-message';
import { toAnthropicToolUse } from './to-anthropic-tool-use';
import { toAnthropicUsage } from './to-anthropic-usage';

export interface AnthropicStreamContext extends AnthropicMessageContext {
  /** `message_start.usage.input_tokens`, when the caller estimated the prompt; 0 otherwise. */
  readonly inputTokensEstimate?: number;
}

export interface AnthropicStreamConverter {
  push(chunk: OllamaChatChunk): AnthropicStreamEvent[];
  /** Throws `UpstreamError` when the node's stream ended before its `done: true` line. */
  end(): AnthropicStreamEvent[];
  fail(error: RouterError): AnthropicErrorEvent;
  /** A keep-alive `ping` while the stream is open; nothing once it has ended. */
  ping(): AnthropicStreamEvent[];
}

type StreamedKind = 'thinking' | 'text';

/** @see protocols.md §6.4 */
export function createAnthropicStreamConverter(context: AnthropicStreamContext): AnthropicStreamConverter {
  const { id, model, stopSequences } = context;
  const tailLength = longestStopSequence(stopSequences);
  let state: 'open' | 'done' | 'failed' = 'open';
  let started = false;
  let nextIndex = 0;
  let open: { readonly kind: StreamedKind; readonly index: number } | undefined;
  let wroteText = false;
  let toolCalls = 0;
  let tail = '';
  let signer: ThinkingSigner | undefined;

  function close(out: AnthropicStreamEvent[]): void {
    if (open === undefined) return;
    if (signer !== undefined) {
      out.push({
        type: 'content_block_delta',
        index: open.index,
        delta: { type: 'signature_delta', signature: signer.digest() },
      });
      signer = undefined;
    }
    out.push({ type: 'content_block_stop', index: open.index });
    open = undefined;
  }

  function stream(kind: StreamedKind, delta: AnthropicContentBlockDelta, out: AnthropicStreamEvent[]): void {
    if (open?.kind !== kind) {
      close(out);
      open = { kind, index: nextIndex };
      nextIndex += 1;
      const block = kind === 'text' ? { type: kind, text: '' } : { type: kind, thinking: '', signature: '' };
      out.push({ type: 'content_block_start', index: open.index, content_block: block });
      if (kind === 'thinking') signer = thinkingSigner();
    }
    if (delta.type === 'thinking_delta') signer?.update(delta.thinking);
    out.push({ type: 'content_block_delta', index: open.index, delta });
  }

  function finish(line: OllamaChatChunk, out: AnthropicStreamEvent[]): void {
    close(out);
    if (!wroteText && toolCalls === 0) {
      out.push({ type: 'content_block_start', index: nextIndex, content_block: { type: 'text', text: '' } });
      out.push({ type: 'content_block_stop', index: nextIndex });
      nextIndex += 1;
    }
    const stop = mapAnthropicStopReason(line.done_reason, { calledTools: toolCalls > 0, text: tail, stopSequences });
    out.push({ type: 'message_delta', delta: stop, usage: toAnthropicUsage(line) });
    out.push({ type: 'message_stop' });
    state = 'done';
  }

  function push(line: OllamaChatChunk): AnthropicStreamEvent[] {
    if (state !== 'open') return [];
    const out: AnthropicStreamEvent[] = [];
    if (!started) {
      started = true;
      out.push({
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: context.inputTokensEstimate ?? 0, output_tokens: 0 },
        },
      });
    }
    const thinking = line.message?.thinking ?? '';
    if (thinking !== '') stream('thinking', { type: 'thinking_delta', thinking }, out);
    const text = line.message?.content ?? '';
    if (text !== '') {
      stream('text', { type: 'text_delta', text }, out);
      wroteText = true;
      if (tailLength > 0) tail = (tail + text).slice(-tailLength);
    }
    for (const call of line.message?.tool_calls ?? []) {
      close(out);
      const { input, ...block } = toAnthropicToolUse(call, id, toolCalls);
      const index = nextIndex;
      nextIndex += 1;
      toolCalls += 1;
      out.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      out.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      });
      out.push({ type: 'content_block_stop', index });
    }
    if (line.done === true) finish(line, out);
    return out;
  }

  function end(): AnthropicStreamEvent[] {
    if (state === 'open') throw new UpstreamError('the node closed the stream before its final line');
    return [];
  }

  function fail(error: RouterError): AnthropicErrorEvent {
    state = 'failed';
    // The same body `renderError` sends before the first byte; parsed to its type, not cast.
    return { type: 'error', error: anthropicErrorBodySchema.parse(errorBody('anthropic', error)).error };
  }

  function ping(): AnthropicStreamEvent[] {
    return state === 'open' ? [{ type: 'ping' }] : [];
  }

  return { push, end, fail, ping };
}
