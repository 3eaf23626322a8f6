/**
 * The client's output budget, kept by the router for a thinking model whose budget it raised
 * (`thinking-budget.ts`): the node may think past `max_tokens`, but the client never gets more visible
 * tokens than it asked for. A filter on the node's `/api/chat` lines, before any family converter:
 * - visible tokens (content; tool-call arguments) and thinking tokens are counted as they stream, each
 *   line's text on its own with the router's one count (`countTokens`, cl100k);
 * - the line whose content would pass the budget is cut to what still fits (`truncateToTokens`) and is
 *   followed by a closing line of the router's own: `done: true`, `done_reason: "length"` (every family
 *   maps it: OpenAI `length`, Anthropic `max_tokens`, Responses `incomplete`), `eval_count` the visible
 *   count and `prompt_eval_count` the caller's estimate (the node reports its counts only at the end);
 *   from then on `spent` is true, later lines give nothing, and the relay stops reading and cancels the
 *   node's stream (the node streams whenever this applies, even to a client that wants one answer);
 * - a node that ends within the budget keeps its own closing line, with `eval_count` replaced by the
 *   visible count, so usage means one thing for such a model whether it was cut or not: the visible
 *   answer (never more than the client's budget). The thinking the raise paid for is not in it (the
 *   client did not budget for it); `generated()` gives the node's own count, or visible plus thinking
 *   after a cut, for the trace.
 * A tool call is never cut (half a call is no call): it passes whole and counts. Pure.
 */
import { countTokens } from '../tokens/count-tokens';
import { truncateToTokens } from '../tokens/truncate-to-tokens';
import type { OllamaChatChunk } from '../wire/ollama';

export interface VisibleBudgetOptions {
  /** The client's budget for visible tokens, > 0. */
  readonly limit: number;
  /** The router's estimate of the prompt, for the closing line of a cut reply. */
  readonly promptTokens?: number;
}

export interface VisibleBudget {
  /** The lines to pass on in place of `line`: the line, its cut part and the closing line, or none. */
  push(line: OllamaChatChunk): OllamaChatChunk[];
  /** True once the closing line was given (the node's or, on a cut, the router's): nothing more is wanted. */
  readonly spent: boolean;
  /** Tokens the node generated, as far as known: its own `eval_count`, else visible plus thinking counted. */
  generated(): number;
}

export function createVisibleBudget(options: VisibleBudgetOptions): VisibleBudget {
  const { limit } = options;
  let visible = 0;
  let thinking = 0;
  let nodeCount: number | undefined;
  let closed = false;

  function closing(line: OllamaChatChunk): OllamaChatChunk {
    const last: OllamaChatChunk = {
      model: line.model ?? '',
      created_at: line.created_at ?? new Date().toISOString(),
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'length',
      eval_count: visible,
    };
    return options.promptTokens === undefined ? last : { ...last, prompt_eval_count: options.promptTokens };
  }

  function push(line: OllamaChatChunk): OllamaChatChunk[] {
    if (closed) return [];
    const message = line.message;
    if (line.done === true && typeof line.eval_count === 'number') nodeCount = line.eval_count;
    thinking += countTokens(message?.thinking ?? '');
    for (const call of message?.tool_calls ?? [])
      visible += countTokens(JSON.stringify(call.function?.arguments ?? {}));
    const content = message?.content ?? '';
    const tokens = countTokens(content);
    if (visible + tokens <= limit || message === undefined || message === null) {
      visible += tokens;
      if (line.done !== true) return [line];
      closed = true;
      return [{ ...line, eval_count: visible }];
    }
    const cut = truncateToTokens(content, Math.max(0, limit - visible));
    visible += cut.tokens;
    closed = true;
    const kept = cut.text !== '' || (message.thinking ?? '') !== '' || (message.tool_calls?.length ?? 0) > 0;
    const part: OllamaChatChunk = {
      model: line.model,
      created_at: line.created_at,
      message: { ...message, content: cut.text },
      done: false,
    };
    return kept ? [part, closing(line)] : [closing(line)];
  }

  return {
    push,
    get spent() {
      return closed;
    },
    generated: () => nodeCount ?? visible + thinking,
  };
}
