/**
 * The shape every translated chat reply shares (OpenAI chat, Responses, Anthropic Messages): the node's
 * `/api/chat` lines are parsed one by one; streaming, each goes through the family's converter and its
 * bytes are written as they come; non-streaming, the lines are collected into one reply that the family
 * renders as its body, with the diagnostic headers. A family gives only what differs.
 */
import type { RouterError } from '../errors';
import { SSE_TYPE } from '../http/reply';
import { chatDiagnosticHeaders, type DiagnosticRequestOptions } from '../protocols/diagnostic-headers';
import { createOllamaChatAccumulator } from '../protocols/ollama/ollama-chat-accumulator';
import { parseOllamaChatLine } from '../protocols/ollama/parse-ollama-line';
import type { OllamaChatChunk } from '../wire/ollama';
import type { ChatOutput } from './chat-output';
import { outcomeOf } from './ollama-output';

export interface ConvertedOutputParts {
  readonly streaming: boolean;
  /** The options sent to the node, for the diagnostic headers of a whole reply. */
  readonly options: DiagnosticRequestOptions | null | undefined;
  /** Streaming: the bytes for one node line ('' for none). */
  convert(chunk: OllamaChatChunk): string;
  /** Streaming: the closing bytes; throws `UpstreamError` when the node never sent its last line. */
  close(): string;
  /** Non-streaming: the family's body for the whole reply. */
  render(whole: OllamaChatChunk): unknown;
  /** The bytes that report a failure in band, after the first byte. */
  fail(error: RouterError): string;
}

export function createConvertedOutput(parts: ConvertedOutputParts): ChatOutput<OllamaChatChunk> {
  const accumulator = createOllamaChatAccumulator();
  let final: OllamaChatChunk | undefined;
  return {
    streaming: parts.streaming,
    contentType: SSE_TYPE,
    parseLine: parseOllamaChatLine,
    push(chunk) {
      if (chunk.done === true) final ??= chunk;
      if (parts.streaming) return parts.convert(chunk);
      accumulator.push(chunk);
      return '';
    },
    end() {
      if (parts.streaming) return { body: parts.close() };
      const whole = accumulator.end();
      return { body: JSON.stringify(parts.render(whole)), headers: chatDiagnosticHeaders(whole, parts.options) };
    },
    fail: (error) => parts.fail(error),
    outcome: () => outcomeOf(final),
  };
}
