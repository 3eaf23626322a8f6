/**
 * What routing quality looks like from the rollups (issue 41 item 5): the prefill and decode rates the
 * nodes measured themselves (Ollama `prompt_eval_*`, `eval_*`: exact ratios of the window's sums, not an
 * average of per-request rates) and the share of the prompts the nodes' caches served. Pure.
 *
 * The cache share is measured where a node reports its cached prompt tokens (Ollama does not), and
 * estimated otherwise: Ollama counts only the prompt tokens it evaluated, so what the router estimated
 * it sent and the node did not evaluate, its cache served — 1 − evaluated / estimate over the window's
 * sums, never below 0. The estimate is the router's own count (no chat template, no exact tokenizer):
 * the figure says which one it is.
 */
import type { Rollup } from './rollup';
import { round1 } from './rollup-figures';

export interface PromptCacheShare {
  /** The share shown, %: the measured one where any request measured it, else the estimated one; null: neither. */
  readonly share_pct: number | null;
  readonly source: 'measured' | 'estimated' | null;
  /** Cached / prompt tokens over the requests whose node reported its cache, %. */
  readonly measured_pct: number | null;
  readonly measured_requests: number;
  /** 1 − tokens the nodes evaluated / the router's prompt estimate, over the requests with both, %. */
  readonly estimated_pct: number | null;
  readonly estimated_requests: number;
}

export interface ObservedRates {
  /** Prompt tokens the nodes evaluated per second of their own prompt time; null: none reported it. */
  readonly prefill_tokens_per_second: number | null;
  /** Tokens the nodes generated per second of their own generation time; null: none reported it. */
  readonly decode_tokens_per_second: number | null;
  readonly prompt_cache: PromptCacheShare;
}

/** Tokens per second from a token sum and a time sum in ms; null when no time was counted. */
function rate(tokens: number, ms: number): number | null {
  return ms > 0 ? round1((tokens * 1000) / ms) : null;
}

export function promptCacheShare(rollup: Rollup): PromptCacheShare {
  const c = rollup.counters;
  const measured =
    c.cached_count > 0 && c.cached_prompt_tokens > 0 ? round1((c.cached_tokens * 100) / c.cached_prompt_tokens) : null;
  const estimated =
    c.estimate_prompt_tokens > 0
      ? round1(Math.max(0, 1 - c.estimate_evaluated_tokens / c.estimate_prompt_tokens) * 100)
      : null;
  const source = measured !== null ? 'measured' : estimated !== null ? 'estimated' : null;
  return {
    share_pct: measured ?? estimated,
    source,
    measured_pct: measured,
    measured_requests: c.cached_count,
    estimated_pct: estimated,
    estimated_requests: c.estimate_count,
  };
}

export function observedRates(rollup: Rollup): ObservedRates {
  const c = rollup.counters;
  return {
    prefill_tokens_per_second: rate(c.prompt_eval_tokens, c.prompt_eval_ms),
    decode_tokens_per_second: rate(c.eval_tokens, c.eval_ms),
    prompt_cache: promptCacheShare(rollup),
  };
}
