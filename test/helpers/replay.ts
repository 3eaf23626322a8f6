/**
 * Replays node bytes through the Responses stream stages the way a relay chains them: decode NDJSON,
 * parse each line, convert, encode SSE; the in-band failure after a failed one. Returns the bytes a
 * client would read, as text.
 */
import { toRouterError } from '../../lib/core/errors';
import { parseOllamaChatLine } from '../../lib/core/protocols/ollama/parse-ollama-line';
import { encodeResponsesEvent } from '../../lib/core/protocols/responses/encode-responses-event';
import type { ResponsesContext } from '../../lib/core/protocols/responses/responses-envelope';
import { createResponsesStreamConverter } from '../../lib/core/protocols/responses/responses-stream-converter';
import type { ResponsesStreamEvent } from '../../lib/core/protocols/responses/responses-stream-event';
import { createNdjsonDecoder, type DecodedLine } from '../../lib/core/stream/ndjson-decoder';
import { parseResponsesRequest, type ResponsesRequest } from '../../lib/core/wire/responses';

/** Parses a body as the handler does, so each case is a request a client could send. */
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

export const STREAM_CONTEXT = responsesContext();

export function replayResponses(chunks: readonly Uint8Array[], context: ResponsesContext = STREAM_CONTEXT): string {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  const converter = createResponsesStreamConverter(context);
  let out = converter.start().map(encodeResponsesEvent).join('');
  const convert = (lines: readonly DecodedLine[]) => {
    for (const line of lines) {
      const parsed = parseOllamaChatLine(line);
      if (!parsed.ok) throw parsed.error;
      for (const event of converter.push(parsed.chunk)) out += encodeResponsesEvent(event);
    }
  };
  try {
    for (const chunk of chunks) convert(decoder.push(chunk));
    convert(decoder.end());
    for (const event of converter.end()) out += encodeResponsesEvent(event);
    return out;
  } catch (error) {
    return out + converter.fail(toRouterError(error)).map(encodeResponsesEvent).join('');
  }
}

/** The events of an SSE text, checking each frame's name equals its payload's `type`. */
export function sseEvents(text: string): ResponsesStreamEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const match = /^event: ([^\n]+)\ndata: ([^\n]+)$/.exec(frame);
      if (match === null) throw new Error(`not a named event: ${frame}`);
      const event = JSON.parse(match[2] ?? '') as ResponsesStreamEvent;
      if (event.type !== match[1]) throw new Error(`event ${match[1]} carries type ${event.type}`);
      return event;
    });
}
