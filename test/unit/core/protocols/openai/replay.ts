/**
 * Replays node bytes through the OpenAI chat stream stages the way a relay chains them: decode NDJSON,
 * parse each line, convert, encode SSE; `[DONE]` after a complete stream, the in-band error after a
 * failed one. Returns the bytes a client would read, as text.
 */
import { toRouterError } from '../../../../../lib/core/errors';
import { parseOllamaChatLine } from '../../../../../lib/core/protocols/ollama/parse-ollama-line';
import {
  createOpenAIChatStreamConverter,
  type OpenAIChatStreamContext,
} from '../../../../../lib/core/protocols/openai/openai-chat-stream-converter';
import { createNdjsonDecoder, type DecodedLine } from '../../../../../lib/core/stream/ndjson-decoder';
import { encodeSseData, SSE_DONE } from '../../../../../lib/core/stream/sse';

export const STREAM_CONTEXT: OpenAIChatStreamContext = {
  id: 'chatcmpl-7f3a9c2e1b4d',
  created: 1763630043,
  model: 'qwen3:8b',
  includeUsage: false,
};

export function replayOpenAIChat(chunks: readonly Uint8Array[], context: OpenAIChatStreamContext): string {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  const converter = createOpenAIChatStreamConverter(context);
  let out = '';
  const convert = (lines: readonly DecodedLine[]) => {
    for (const line of lines) {
      const parsed = parseOllamaChatLine(line);
      if (!parsed.ok) throw parsed.error;
      for (const chunk of converter.push(parsed.chunk)) out += encodeSseData(chunk);
    }
  };
  try {
    for (const chunk of chunks) convert(decoder.push(chunk));
    convert(decoder.end());
    for (const chunk of converter.end()) out += encodeSseData(chunk);
    return out + SSE_DONE;
  } catch (error) {
    return out + encodeSseData(converter.fail(toRouterError(error)));
  }
}

/** The JSON payloads of an SSE text, `[DONE]` kept as the string. */
export function sseFrames(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      if (!frame.startsWith('data: ')) throw new Error(`not a data frame: ${frame}`);
      const data = frame.slice('data: '.length);
      return data === '[DONE]' ? data : (JSON.parse(data) as unknown);
    });
}
