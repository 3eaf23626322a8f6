/**
 * `/api/chat` and `/api/generate` replies (spec §4.4): streaming forwards each node line as it came,
 * byte for byte; non-streaming collects the lines into one object that keeps `thinking` and
 * `tool_calls`, with the diagnostic headers. A failure after the first byte is an `{"error": ...}` line.
 */
import { UpstreamError } from '../errors';
import { NDJSON_TYPE } from '../http/reply';
import type { DiagnosticRequestOptions } from '../protocols/diagnostic-headers';
import { chatDiagnosticHeaders, generateDiagnosticHeaders } from '../protocols/diagnostic-headers';
import { createOllamaChatAccumulator } from '../protocols/ollama/ollama-chat-accumulator';
import { createOllamaGenerateAccumulator } from '../protocols/ollama/ollama-generate-accumulator';
import { parseOllamaChatLine, parseOllamaGenerateLine } from '../protocols/ollama/parse-ollama-line';
import { inBandError } from '../stream/in-band-error';
import type { OllamaChatChunk, OllamaGenerateChunk } from '../wire/ollama';
import type { ChatOutcome, ChatOutput } from './chat-output';

type Final = Pick<OllamaChatChunk, 'done_reason' | 'prompt_eval_count' | 'eval_count'>;

export function outcomeOf(final: Final | undefined): ChatOutcome {
  // Set one by one, not spread: see lib/merged.ts on why the request path avoids spreads.
  const outcome: { -readonly [K in keyof ChatOutcome]: ChatOutcome[K] } = {};
  if (final === undefined) return outcome;
  if (typeof final.prompt_eval_count === 'number') outcome.promptTokens = final.prompt_eval_count;
  if (typeof final.eval_count === 'number') outcome.completionTokens = final.eval_count;
  if (typeof final.done_reason === 'string') outcome.finishReason = final.done_reason;
  return outcome;
}

const endedEarly = () => new UpstreamError("the node's stream ended before its last line");

export function createOllamaOutput(
  endpoint: 'chat' | 'generate',
  streaming: boolean,
  options: DiagnosticRequestOptions | null | undefined,
): ChatOutput<OllamaChatChunk | OllamaGenerateChunk> {
  const chat = endpoint === 'chat';
  const accumulator = chat ? createOllamaChatAccumulator() : createOllamaGenerateAccumulator();
  let final: (OllamaChatChunk | OllamaGenerateChunk) | undefined;
  return {
    streaming,
    contentType: NDJSON_TYPE,
    parseLine: (line) => (chat ? parseOllamaChatLine(line) : parseOllamaGenerateLine(line)),
    push(chunk, raw) {
      if (final !== undefined) return '';
      if (chunk.done === true) final = chunk;
      if (streaming) return `${raw}\n`;
      (accumulator.push as (value: OllamaChatChunk | OllamaGenerateChunk) => void)(chunk);
      return '';
    },
    end() {
      if (streaming) {
        if (final === undefined) throw endedEarly();
        return { body: '' };
      }
      const whole = accumulator.end();
      const headers = chat
        ? chatDiagnosticHeaders(whole as OllamaChatChunk, options)
        : generateDiagnosticHeaders(whole as OllamaGenerateChunk, options);
      return { body: JSON.stringify(whole), headers };
    },
    fail: (error) => inBandError('ollama', error),
    outcome: () => outcomeOf(final),
  };
}
