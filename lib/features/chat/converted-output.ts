/**
 * The shape every translated chat reply shares (OpenAI chat, Responses, Anthropic Messages): the node's
 * `/api/chat` lines are parsed one by one; streaming, each goes through the family's converter and its
 * bytes are written as they come; non-streaming, the lines are collected into one reply that the family
 * renders as its body, with the diagnostic headers. A family gives only what differs.
 */
import type { RouterError } from '../../core/errors';
import { chatDiagnosticHeaders, type DiagnosticRequestOptions } from '../../core/protocols/diagnostic-headers';
import { createOllamaChatAccumulator } from '../../core/protocols/ollama/ollama-chat-accumulator';
import { parseOllamaChatLine } from '../../core/protocols/ollama/parse-ollama-line';
import { createVisibleBudget, type VisibleBudgetOptions } from '../../core/protocols/visible-budget';
import type { KeepAlive } from '../../core/stream/stream-converter';
import type { OllamaChatChunk } from '../../core/wire/ollama';
import { SSE_TYPE } from '../../services/http/reply';
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
  /** The client's visible budget when the router raised the node's for thinking (`visibleBudgetOf`). */
  readonly visibleBudget?: VisibleBudgetOptions | undefined;
  /** Streaming: what goes out while the node is quiet (the relay writes it). */
  readonly keepAlive?: KeepAlive | undefined;
}

export function createConvertedOutput(parts: ConvertedOutputParts): ChatOutput<OllamaChatChunk> {
  const accumulator = createOllamaChatAccumulator();
  const budget = parts.visibleBudget === undefined ? undefined : createVisibleBudget(parts.visibleBudget);
  let final: OllamaChatChunk | undefined;
  const pass = (chunk: OllamaChatChunk): string => {
    if (chunk.done === true) final ??= chunk;
    if (parts.streaming) return parts.convert(chunk);
    accumulator.push(chunk);
    return '';
  };
  return {
    streaming: parts.streaming,
    contentType: SSE_TYPE,
    parseLine: parseOllamaChatLine,
    push(chunk) {
      if (budget === undefined) return pass(chunk);
      let bytes = '';
      for (const line of budget.push(chunk)) bytes += pass(line);
      return bytes;
    },
    end() {
      if (parts.streaming) return { body: parts.close() };
      const whole = accumulator.end();
      return { body: JSON.stringify(parts.render(whole)), headers: chatDiagnosticHeaders(whole, parts.options) };
    },
    fail: (error) => parts.fail(error),
    // The trace counts what the node generated, thinking included, whatever the client was told.
    outcome: () =>
      budget === undefined || final === undefined
        ? outcomeOf(final)
        : outcomeOf({ ...final, eval_count: budget.generated() }),
    satisfied: budget === undefined ? undefined : () => budget.spent,
    keepAlive: parts.keepAlive,
  };
}
