/**
 * `/v1/messages` replies (spec §4.3; protocols §6.3–6.5): streaming converts each node line into
 * Anthropic's named SSE events as it comes (no `[DONE]`: the stream ends at `message_stop`);
 * non-streaming collects the lines and answers one `message` body with the diagnostic headers. A failure
 * after the first byte is the converter's `event: error`, which the SDK throws.
 *
 * Keep-alive: a streamed reply offers the relay a `ping` event (as Anthropic sends them; the SDK skips
 * them) for when nothing was written for `pingIntervalMs`, so a client waiting for a model to load is not
 * cut off by its own or a proxy's idle timeout. The relay (lib/services/http/relay-stream) writes it,
 * only on a streaming host, after the status and headers are fixed (every `X-Fleet-*` header is final
 * before the first byte, ARCHITECTURE.md §9.4), and never after the end.
 */

import { createAnthropicStreamConverter } from '../../core/protocols/anthropic/anthropic-stream-converter';
import { encodeAnthropicEvent } from '../../core/protocols/anthropic/encode-anthropic-event';
import { toAnthropicMessage } from '../../core/protocols/anthropic/to-anthropic-message';
import type { DiagnosticRequestOptions } from '../../core/protocols/diagnostic-headers';
import type { VisibleBudgetOptions } from '../../core/protocols/visible-budget';
import type { AnthropicStreamEvent } from '../../core/wire/anthropic';
import type { OllamaChatChunk } from '../../core/wire/ollama';
import type { ChatOutput } from './chat-output';
import { createConvertedOutput } from './converted-output';

/** How long a streamed reply may stay quiet before a `ping` goes out. */
export const PING_INTERVAL_MS = 10_000;

export interface AnthropicOutputContext {
  /** `msg_…`. */
  readonly id: string;
  /** The model name the message reports. */
  readonly model: string;
  readonly streaming: boolean;
  /** The request's `stop_sequences`, to name the one that ended the reply. */
  readonly stopSequences: readonly string[];
  /** `message_start.usage.input_tokens` until the node counts the prompt. */
  readonly inputTokensEstimate?: number;
  /** The options sent to the node, for the diagnostic headers. */
  readonly options: DiagnosticRequestOptions | null | undefined;
  /** The client's visible budget when the router raised the node's for thinking (`visibleBudgetOf`). */
  readonly visibleBudget?: VisibleBudgetOptions | undefined;
  /**
   * Whether the client asked for thinking (`thinking` sent, not `disabled`): a client that did not gets
   * no thinking blocks, even from a model that thinks anyway (the trace still counts its tokens).
   */
  readonly showThinking: boolean;
  /** How long a streamed reply may stay quiet before a `ping` (default `PING_INTERVAL_MS`). */
  readonly pingIntervalMs?: number;
}

const encode = (events: readonly AnthropicStreamEvent[]): string => events.map(encodeAnthropicEvent).join('');

export function createAnthropicOutput(context: AnthropicOutputContext): ChatOutput<OllamaChatChunk> {
  const converter = createAnthropicStreamConverter({
    id: context.id,
    model: context.model,
    stopSequences: context.stopSequences,
    ...(context.inputTokensEstimate !== undefined ? { inputTokensEstimate: context.inputTokensEstimate } : {}),
  });
  return createConvertedOutput({
    streaming: context.streaming,
    options: context.options,
    visibleBudget: context.visibleBudget,
    convert: (chunk) => encode(converter.push(context.showThinking ? chunk : withoutThinking(chunk))),
    close: () => encode(converter.end()),
    render: (whole) => toAnthropicMessage(context.showThinking ? whole : withoutThinking(whole), context),
    fail: (error) => encodeAnthropicEvent(converter.fail(error)),
    // `ping()` gives nothing once the stream has ended.
    keepAlive: context.streaming
      ? { intervalMs: context.pingIntervalMs ?? PING_INTERVAL_MS, bytes: () => encode(converter.ping()) }
      : undefined,
  });
}

/** The line without the model's thinking. */
function withoutThinking(chunk: OllamaChatChunk): OllamaChatChunk {
  const message = chunk.message;
  if (message === undefined || message === null || message.thinking === undefined) return chunk;
  const { thinking: _thinking, ...rest } = message;
  return { ...chunk, message: rest };
}
