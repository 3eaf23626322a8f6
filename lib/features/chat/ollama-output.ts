/**
 * `/api/chat` and `/api/generate` replies (spec §4.4): streaming forwards each node line as it came,
 * byte for byte; non-streaming collects the lines into one object that keeps `thinking` and
 * `tool_calls`, with the diagnostic headers. A failure after the first byte is an `{"error": ...}` line.
 *
 * A node asked for `stream: false` (Ollama answers that with one line) may already have sent the whole
 * answer: a single `done: true` line whose message (or `response`) is complete. That line is the body as
 * the node wrote it, like a streamed line, rather than parsed, rebuilt and serialised again.
 */
import { UpstreamError } from '../../core/errors';
import type { DiagnosticRequestOptions } from '../../core/protocols/diagnostic-headers';
import { chatDiagnosticHeaders, generateDiagnosticHeaders } from '../../core/protocols/diagnostic-headers';
import { createOllamaChatAccumulator } from '../../core/protocols/ollama/ollama-chat-accumulator';
import { createOllamaGenerateAccumulator } from '../../core/protocols/ollama/ollama-generate-accumulator';
import { parseOllamaChatLine, parseOllamaGenerateLine } from '../../core/protocols/ollama/parse-ollama-line';
import { inBandError } from '../../core/stream/in-band-error';
import type { OllamaChatChunk, OllamaGenerateChunk } from '../../core/wire/ollama';
import { NDJSON_TYPE } from '../../services/http/reply';
import type { ChatOutcome, ChatOutput } from './chat-output';

type Final = Pick<
  OllamaChatChunk,
  | 'done_reason'
  | 'prompt_eval_count'
  | 'eval_count'
  | 'load_duration'
  | 'prompt_eval_duration'
  | 'eval_duration'
  | 'prompt_cache_count'
>;

/** Ollama's durations are nanoseconds. */
const NS_PER_MS = 1e6;

/** Loading, the prompt, then one token of the answer: the node's time to its first token. */
function nodeFirstTokenMs(final: Final): number | undefined {
  const { load_duration: load, prompt_eval_duration: prompt, eval_duration: answer, eval_count: count } = final;
  if (typeof load !== 'number' || typeof prompt !== 'number') return undefined;
  const oneToken = typeof answer === 'number' && typeof count === 'number' && count > 0 ? answer / count : 0;
  return (load + prompt + oneToken) / NS_PER_MS;
}

export function outcomeOf(final: Final | undefined): ChatOutcome {
  // Set one by one, not spread: see lib/core/merged.ts on why the request path avoids spreads.
  const outcome: { -readonly [K in keyof ChatOutcome]: ChatOutcome[K] } = {};
  if (final === undefined) return outcome;
  if (typeof final.prompt_eval_count === 'number') outcome.promptTokens = final.prompt_eval_count;
  if (typeof final.eval_count === 'number') outcome.completionTokens = final.eval_count;
  if (typeof final.done_reason === 'string') outcome.finishReason = final.done_reason;
  if (typeof final.load_duration === 'number') outcome.loadMs = Math.round(final.load_duration / NS_PER_MS);
  if (typeof final.prompt_cache_count === 'number') outcome.cachedTokens = final.prompt_cache_count;
  if (typeof final.prompt_eval_duration === 'number') outcome.promptEvalMs = final.prompt_eval_duration / NS_PER_MS;
  if (typeof final.eval_duration === 'number') outcome.evalMs = final.eval_duration / NS_PER_MS;
  const firstToken = nodeFirstTokenMs(final);
  if (firstToken !== undefined) outcome.nodeFirstTokenMs = firstToken;
  return outcome;
}

const endedEarly = () => new UpstreamError("the node's stream ended before its last line");

/** True when a lone final line is already the answer the accumulator would build from it. */
function isWholeAnswer(chat: boolean, line: OllamaChatChunk | OllamaGenerateChunk): boolean {
  if (!chat) return typeof (line as OllamaGenerateChunk).response === 'string';
  const message = (line as OllamaChatChunk).message;
  return typeof message?.role === 'string' && typeof message.content === 'string';
}

function diagnosticHeaders(
  chat: boolean,
  whole: OllamaChatChunk | OllamaGenerateChunk,
  options: DiagnosticRequestOptions | null | undefined,
): Record<string, string> {
  return chat
    ? chatDiagnosticHeaders(whole as OllamaChatChunk, options)
    : generateDiagnosticHeaders(whole as OllamaGenerateChunk, options);
}

export function createOllamaOutput(
  endpoint: 'chat' | 'generate',
  streaming: boolean,
  options: DiagnosticRequestOptions | null | undefined,
): ChatOutput<OllamaChatChunk | OllamaGenerateChunk> {
  const chat = endpoint === 'chat';
  const accumulator = chat ? createOllamaChatAccumulator() : createOllamaGenerateAccumulator();
  let final: (OllamaChatChunk | OllamaGenerateChunk) | undefined;
  let lines = 0;
  /** The node's first line as it came, kept for a reply that turns out to be that line alone. */
  let firstRaw = '';
  return {
    streaming,
    contentType: NDJSON_TYPE,
    parseLine: (line) => (chat ? parseOllamaChatLine(line) : parseOllamaGenerateLine(line)),
    push(chunk, raw) {
      if (final !== undefined) return '';
      if (chunk.done === true) final = chunk;
      if (streaming) return `${raw}\n`;
      lines += 1;
      if (lines === 1) firstRaw = raw;
      (accumulator.push as (value: OllamaChatChunk | OllamaGenerateChunk) => void)(chunk);
      return '';
    },
    end() {
      if (streaming) {
        if (final === undefined) throw endedEarly();
        return { body: '' };
      }
      if (lines === 1 && final !== undefined && isWholeAnswer(chat, final)) {
        return { body: firstRaw, headers: diagnosticHeaders(chat, final, options) };
      }
      const whole = accumulator.end();
      return { body: JSON.stringify(whole), headers: diagnosticHeaders(chat, whole, options) };
    },
    fail: (error) => inBandError('ollama', error),
    outcome: () => outcomeOf(final),
  };
}
