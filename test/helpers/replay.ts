/**
 * Replays node bytes through a family's stream stages the way a relay chains them: decode NDJSON, parse
 * each line, convert, encode SSE; what a complete stream ends with (`[DONE]` for OpenAI chat), the
 * family's in-band error after a failed one. Returns the bytes a client would read, as text. One driver
 * for every family; the families differ only in their converter, encoder, opening and ending.
 */
import { type RouterError, toRouterError } from '../../lib/core/errors';
import {
  type AnthropicStreamContext,
  createAnthropicStreamConverter,
} from '../../lib/core/protocols/anthropic/anthropic-stream-converter';
import { encodeAnthropicEvent } from '../../lib/core/protocols/anthropic/encode-anthropic-event';
import { parseOllamaChatLine } from '../../lib/core/protocols/ollama/parse-ollama-line';
import {
  createOpenAIChatStreamConverter,
  type OpenAIChatStreamContext,
} from '../../lib/core/protocols/openai/openai-chat-stream-converter';
import { encodeResponsesEvent } from '../../lib/core/protocols/responses/encode-responses-event';
import type { ResponsesContext } from '../../lib/core/protocols/responses/responses-envelope';
import { createResponsesStreamConverter } from '../../lib/core/protocols/responses/responses-stream-converter';
import type { ResponsesStreamEvent } from '../../lib/core/protocols/responses/responses-stream-event';
import { createNdjsonDecoder, type DecodedLine } from '../../lib/core/stream/ndjson-decoder';
import { encodeSseData, SSE_DONE } from '../../lib/core/stream/sse';
import type { OllamaChatChunk } from '../../lib/core/wire/ollama';
import { parseResponsesRequest, type ResponsesRequest } from '../../lib/core/wire/responses';

/** One family's stages after the decoder: what the relay writes for each node chunk, at the end, on failure. */
interface FamilyStages {
  readonly opening: string;
  readonly push: (chunk: OllamaChatChunk) => string;
  /** What a complete stream ends with. */
  readonly end: () => string;
  /** The in-band error after a failed stream. */
  readonly fail: (error: RouterError) => string;
}

function replay(chunks: readonly Uint8Array[], stages: FamilyStages): string {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  let out = stages.opening;
  const convert = (lines: readonly DecodedLine[]) => {
    for (const line of lines) {
      const parsed = parseOllamaChatLine(line);
      if (!parsed.ok) throw parsed.error;
      out += stages.push(parsed.chunk);
    }
  };
  try {
    for (const chunk of chunks) convert(decoder.push(chunk));
    convert(decoder.end());
    return out + stages.end();
  } catch (error) {
    return out + stages.fail(toRouterError(error));
  }
}

export const ANTHROPIC_CONTEXT: AnthropicStreamContext = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  model: 'qwen3:8b',
  stopSequences: [],
};

export function replayAnthropic(chunks: readonly Uint8Array[], context: AnthropicStreamContext): string {
  const converter = createAnthropicStreamConverter(context);
  return replay(chunks, {
    opening: '',
    push: (chunk) => converter.push(chunk).map(encodeAnthropicEvent).join(''),
    end: () => converter.end().map(encodeAnthropicEvent).join(''),
    fail: (error) => encodeAnthropicEvent(converter.fail(error)),
  });
}

export const OPENAI_CHAT_CONTEXT: OpenAIChatStreamContext = {
  id: 'chatcmpl-7f3a9c2e1b4d',
  created: 1763630043,
  model: 'qwen3:8b',
  includeUsage: false,
};

export function replayOpenAIChat(chunks: readonly Uint8Array[], context: OpenAIChatStreamContext): string {
  const converter = createOpenAIChatStreamConverter(context);
  return replay(chunks, {
    opening: '',
    push: (chunk) => converter.push(chunk).map(encodeSseData).join(''),
    end: () => converter.end().map(encodeSseData).join('') + SSE_DONE,
    fail: (error) => encodeSseData(converter.fail(error)),
  });
}

/** Parses a Responses body as the handler does, so each case is a request a client could send. */
export function responsesRequest(body: Record<string, unknown>): ResponsesRequest {
  const parsed = parseResponsesRequest({ model: 'qwen3:8b', ...body });
  if (!parsed.ok) throw new Error(`${parsed.field}: ${parsed.message}`);
  return parsed.value;
}

export function responsesContext(body: Record<string, unknown> = { input: 'hi' }): ResponsesContext {
  return {
    id: 'resp_7f3a9c2e1b4d',
    createdAt: 1763630043,
    now: () => 1763630045,
    model: 'qwen3:8b',
    request: responsesRequest(body),
  };
}

export const RESPONSES_CONTEXT = responsesContext();

export function replayResponses(chunks: readonly Uint8Array[], context: ResponsesContext = RESPONSES_CONTEXT): string {
  const converter = createResponsesStreamConverter(context);
  return replay(chunks, {
    opening: converter.start().map(encodeResponsesEvent).join(''),
    push: (chunk) => converter.push(chunk).map(encodeResponsesEvent).join(''),
    end: () => converter.end().map(encodeResponsesEvent).join(''),
    fail: (error) => converter.fail(error).map(encodeResponsesEvent).join(''),
  });
}

/** The events of an SSE text as `[name, payload]`, checking each frame is a named event (Anthropic, Responses). */
export function sseEvents(text: string): [string, unknown][] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const match = /^event: ([^\n]+)\ndata: ([^\n]+)$/.exec(frame);
      if (match === null) throw new Error(`not a named event: ${frame}`);
      return [match[1] ?? '', JSON.parse(match[2] ?? '') as unknown];
    });
}

/** The Responses events of an SSE text, checking each frame's name equals its payload's `type`. */
export function responsesEvents(text: string): ResponsesStreamEvent[] {
  return sseEvents(text).map(([name, payload]) => {
    const event = payload as ResponsesStreamEvent;
    if (event.type !== name) throw new Error(`event ${name} carries type ${event.type}`);
    return event;
  });
}
