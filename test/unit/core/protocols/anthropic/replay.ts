/**
 * Replays node bytes through the Anthropic stream stages the way a relay chains them: decode NDJSON,
 * parse each line, convert, encode SSE; the in-band `error` event after a failed stream. Returns the
 * bytes a client would read, as text.
 */
import { toRouterError } from '../../../../../lib/core/errors';
import {
  type AnthropicStreamContext,
  createAnthropicStreamConverter,
} from '../../../../../lib/core/protocols/anthropic/anthropic-stream-converter';
import { encodeAnthropicEvent } from '../../../../../lib/core/protocols/anthropic/encode-anthropic-event';
import { parseOllamaChatLine } from '../../../../../lib/core/protocols/ollama/parse-ollama-line';
import { createNdjsonDecoder, type DecodedLine } from '../../../../../lib/core/stream/ndjson-decoder';

export const STREAM_CONTEXT: AnthropicStreamContext = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  model: 'qwen3:8b',
  stopSequences: [],
};

export function replayAnthropic(chunks: readonly Uint8Array[], context: AnthropicStreamContext): string {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  const converter = createAnthropicStreamConverter(context);
  let out = '';
  const convert = (lines: readonly DecodedLine[]) => {
    for (const line of lines) {
      const parsed = parseOllamaChatLine(line);
      if (!parsed.ok) throw parsed.error;
      for (const event of converter.push(parsed.chunk)) out += encodeAnthropicEvent(event);
    }
  };
  try {
    for (const chunk of chunks) convert(decoder.push(chunk));
    convert(decoder.end());
    for (const event of converter.end()) out += encodeAnthropicEvent(event);
    return out;
  } catch (error) {
    return out + encodeAnthropicEvent(converter.fail(toRouterError(error)));
  }
}

/** The events of an SSE text as `[name, payload]`, checking each frame is a named event. */
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
