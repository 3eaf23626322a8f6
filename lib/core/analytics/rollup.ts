/**
 * The read model's unit (issue 22 item 1, ARCHITECTURE.md §5): a rollup is the sum of the requests of
 * one period (a UTC day or hour) and one scope (node × model, tag, model, node, the fleet), kept as flat
 * numeric attributes of one table item so that every instance adds to it with `ADD` (counters, histogram
 * buckets) and raises its maxima with a conditional write, and a window is read as a few items, whatever
 * the traffic. This file says what a trace adds (`traceIncrements`) and reads an item back (`rollupOf`).
 * Pure.
 *
 * Attribute names: the counters by name (`requests`, `latency_ms`, …), the maxima by name
 * (`max_total_tokens`, `last_at`), a histogram bucket as its prefix and index (`hl37`: latency bucket 37),
 * per-style counts as `style_<style>` and `style_<style>_failed`.
 */

import { addHistograms, bucketOf, type Histogram } from './histogram';
import type { Trace } from './trace-record';

/** A trace as the rollups see it: the fields they count. */
export type RollupTrace = Pick<
  Trace,
  | 'startedAt'
  | 'style'
  | 'status'
  | 'latencyMs'
  | 'timeToFirstTokenMs'
  | 'promptTokens'
  | 'completionTokens'
  | 'retries'
  | 'fallbackModel'
  | 'cachedTokens'
  | 'loadMs'
  | 'promptEvalMs'
  | 'evalMs'
  | 'promptEstimateTokens'
>;

export const ROLLUP_COUNTERS = [
  /** Client requests, each counted once by its final trace (a retried attempt is not a request). */
  'requests',
  'completed',
  'failed',
  'client_disconnected',
  'incomplete',
  /** Attempts that failed and were retried on another node (`retried` traces). */
  'retried',
  'prompt_tokens',
  'completion_tokens',
  /** Sum of latencies, ms. */
  'latency_ms',
  /** Sum of times to first token, ms, over the `ttft_count` requests that have one. */
  'ttft_ms',
  'ttft_count',
  /** Time spent decoding after the first token, ms, and the tokens decoded in it (completion − 1). */
  'decode_ms',
  'decode_tokens',
  /** Retries summed over requests, and requests answered by a fallback model. */
  'retries',
  'fallbacks',
  /**
   * Prompt tokens served from the node's cache, over the `cached_count` requests that report it, and the
   * prompt tokens of those same requests: their ratio is the cache hit rate where it was measured.
   */
  'cached_tokens',
  'cached_count',
  'cached_prompt_tokens',
  /** Requests whose node loaded the model first (load ≥ `COLD_LOAD_MS`). */
  'cold_loads',
  /**
   * The node's own prefill: prompt tokens it evaluated and its time evaluating them, ms (Ollama
   * `prompt_eval_count`, `prompt_eval_duration`), over requests that report both above zero; their
   * ratio is the prefill rate as the nodes measured it.
   */
  'prompt_eval_tokens',
  'prompt_eval_ms',
  /** The node's own decode: tokens generated and its time generating them, ms (`eval_count`, `eval_duration`). */
  'eval_tokens',
  'eval_ms',
  /**
   * Over the `estimate_count` requests with both: the router's estimate of the prompt sent and the prompt
   * tokens the node evaluated. What the node did not evaluate of the estimate, its cache served (estimated).
   */
  'estimate_prompt_tokens',
  'estimate_evaluated_tokens',
  'estimate_count',
] as const;
export type RollupCounter = (typeof ROLLUP_COUNTERS)[number];

export const ROLLUP_MAXIMA = ['max_prompt_tokens', 'max_total_tokens', 'last_at'] as const;
export type RollupMaximum = (typeof ROLLUP_MAXIMA)[number];

/** Histogram name → attribute prefix. Prompt and total tokens count completed requests with prompt tokens. */
export const HISTOGRAM_PREFIXES = {
  latency_ms: 'hl',
  ttft_ms: 'ht',
  prompt_tokens: 'hp',
  total_tokens: 'hn',
} as const;
export type HistogramName = keyof typeof HISTOGRAM_PREFIXES;
const HISTOGRAM_NAMES = Object.keys(HISTOGRAM_PREFIXES) as HistogramName[];

/** A node's model load this long or longer counts as a cold load. */
export const COLD_LOAD_MS = 1000;

export interface Rollup {
  readonly counters: Readonly<Record<RollupCounter, number>>;
  /** Absent where nothing raised it yet. `last_at` is epoch ms. */
  readonly maxima: Readonly<Partial<Record<RollupMaximum, number>>>;
  readonly histograms: Readonly<Record<HistogramName, Histogram>>;
  /** `style_<style>` → requests of that style, `style_<style>_failed` → those not completed (hour fleet rollups). */
  readonly styles: Readonly<Record<string, number>>;
}

export interface RollupIncrements {
  /** Attributes to `ADD` (counters, histogram buckets, style counts). */
  readonly counters: Record<string, number>;
  /** Attributes to raise to at least this value. */
  readonly maxima: Record<string, number>;
}

export interface IncrementOptions {
  /** Count the request under its style too (the fleet's hourly rollup). */
  readonly byStyle?: boolean;
}

/**
 * A rollup being summed in memory (the recorder's accumulator, lib/services/analytics/rollup-accumulator):
 * the counters as fixed numeric fields, the maxima (`-Infinity` until raised) and one small bucket map per
 * histogram, so adding a trace is a handful of numeric adds. `incrementsOf` turns it into attributes.
 */
export interface RollupSums {
  readonly counters: Record<RollupCounter, number>;
  readonly maxima: Record<RollupMaximum, number>;
  readonly buckets: Readonly<Record<HistogramName, Map<number, number>>>;
}

export function createRollupSums(): RollupSums {
  return {
    counters: {
      requests: 0,
      completed: 0,
      failed: 0,
      client_disconnected: 0,
      incomplete: 0,
      retried: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      latency_ms: 0,
      ttft_ms: 0,
      ttft_count: 0,
      decode_ms: 0,
      decode_tokens: 0,
      retries: 0,
      fallbacks: 0,
      cached_tokens: 0,
      cached_count: 0,
      cached_prompt_tokens: 0,
      cold_loads: 0,
      prompt_eval_tokens: 0,
      prompt_eval_ms: 0,
      eval_tokens: 0,
      eval_ms: 0,
      estimate_prompt_tokens: 0,
      estimate_evaluated_tokens: 0,
      estimate_count: 0,
    },
    maxima: { max_prompt_tokens: -Infinity, max_total_tokens: -Infinity, last_at: -Infinity },
    buckets: { latency_ms: new Map(), ttft_ms: new Map(), prompt_tokens: new Map(), total_tokens: new Map() },
  };
}

function count(buckets: Map<number, number>, value: number): void {
  const bucket = bucketOf(value);
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
}

function raise(maxima: Record<RollupMaximum, number>, name: RollupMaximum, value: number): void {
  if (value > maxima[name]) maxima[name] = value;
}

/**
 * Adds what one trace counts to `sums`. A `retried` attempt counts only `retried` (it is not a request:
 * the request's own final trace counts it) and raises `last_at`. Token histograms and maxima count
 * completed requests with prompt tokens; decode time needs a completed request's TTFT and two tokens.
 */
export function addTrace(sums: RollupSums, trace: RollupTrace): void {
  const { counters, maxima, buckets } = sums;
  raise(maxima, 'last_at', trace.startedAt);
  if (trace.status === 'retried') {
    counters.retried += 1;
    return;
  }
  const prompt = trace.promptTokens ?? 0;
  const completion = trace.completionTokens ?? 0;
  const latency = Math.max(0, Math.round(trace.latencyMs));
  counters.requests += 1;
  counters[trace.status] += 1;
  counters.prompt_tokens += prompt;
  counters.completion_tokens += completion;
  counters.latency_ms += latency;
  count(buckets.latency_ms, latency);
  counters.retries += trace.retries;
  if (trace.fallbackModel !== undefined) counters.fallbacks += 1;
  const ttft = trace.timeToFirstTokenMs;
  if (ttft !== undefined && Number.isFinite(ttft)) {
    const rounded = Math.max(0, Math.round(ttft));
    counters.ttft_ms += rounded;
    counters.ttft_count += 1;
    count(buckets.ttft_ms, rounded);
    if (trace.status === 'completed' && completion > 1 && latency > rounded) {
      counters.decode_ms += latency - rounded;
      counters.decode_tokens += completion - 1;
    }
  }
  if (trace.cachedTokens !== undefined) {
    counters.cached_tokens += trace.cachedTokens;
    counters.cached_count += 1;
    counters.cached_prompt_tokens += prompt;
  }
  if (trace.loadMs !== undefined && trace.loadMs >= COLD_LOAD_MS) counters.cold_loads += 1;
  addNodeTimes(counters, trace);
  if (trace.status === 'completed' && prompt > 0) {
    const total = prompt + completion;
    count(buckets.prompt_tokens, prompt);
    count(buckets.total_tokens, total);
    raise(maxima, 'max_prompt_tokens', prompt);
    raise(maxima, 'max_total_tokens', total);
  }
}

/**
 * The node's own figures: prefill and decode where it reported tokens and a time above zero (a zero time
 * is no measurement), and the router's prompt estimate beside the tokens evaluated where both are known.
 */
function addNodeTimes(counters: Record<RollupCounter, number>, trace: RollupTrace): void {
  const { promptTokens, completionTokens, promptEvalMs, evalMs, promptEstimateTokens } = trace;
  if (promptTokens !== undefined && promptEvalMs !== undefined && promptTokens > 0 && promptEvalMs > 0) {
    counters.prompt_eval_tokens += promptTokens;
    counters.prompt_eval_ms += promptEvalMs;
  }
  if (completionTokens !== undefined && evalMs !== undefined && completionTokens > 0 && evalMs > 0) {
    counters.eval_tokens += completionTokens;
    counters.eval_ms += evalMs;
  }
  if (promptTokens !== undefined && promptEstimateTokens !== undefined && promptEstimateTokens > 0) {
    counters.estimate_prompt_tokens += promptEstimateTokens;
    counters.estimate_evaluated_tokens += promptTokens;
    counters.estimate_count += 1;
  }
}

/** Adds `from` into `into`: counters and buckets summed, maxima the larger. */
export function addSums(into: RollupSums, from: RollupSums): void {
  for (const name of ROLLUP_COUNTERS) into.counters[name] += from.counters[name];
  for (const name of ROLLUP_MAXIMA) raise(into.maxima, name, from.maxima[name]);
  for (const name of HISTOGRAM_NAMES) {
    const buckets = into.buckets[name];
    for (const [bucket, value] of from.buckets[name]) buckets.set(bucket, (buckets.get(bucket) ?? 0) + value);
  }
}

const MICROSECOND_SUMS: ReadonlySet<RollupCounter> = new Set(['prompt_eval_ms', 'eval_ms']);

/**
 * The attributes a rollup item gets from `sums`: counters and buckets that counted something, maxima
 * that were raised, and with `style`, the requests of that style and those of them not completed.
 */
export function incrementsOf(sums: RollupSums, style?: string): RollupIncrements {
  const counters: Record<string, number> = {};
  const maxima: Record<string, number> = {};
  for (const name of ROLLUP_COUNTERS) {
    const value = sums.counters[name];
    // The node's times come in µs steps: their sums say so, without a float's trailing digits.
    if (value !== 0) counters[name] = MICROSECOND_SUMS.has(name) ? Math.round(value * 1000) / 1000 : value;
  }
  for (const name of ROLLUP_MAXIMA) {
    const value = sums.maxima[name];
    if (value !== -Infinity) maxima[name] = value;
  }
  for (const name of HISTOGRAM_NAMES) {
    const prefix = HISTOGRAM_PREFIXES[name];
    for (const [bucket, value] of sums.buckets[name]) counters[`${prefix}${bucket}`] = value;
  }
  if (style !== undefined && sums.counters.requests > 0) {
    counters[`style_${style}`] = sums.counters.requests;
    const failed = sums.counters.requests - sums.counters.completed;
    if (failed > 0) counters[`style_${style}_failed`] = failed;
  }
  return { counters, maxima };
}

/** What one trace adds to a rollup it belongs to (`addTrace` on empty sums, as attributes). */
export function traceIncrements(trace: RollupTrace, options: IncrementOptions = {}): RollupIncrements {
  const sums = createRollupSums();
  addTrace(sums, trace);
  return incrementsOf(sums, options.byStyle === true ? trace.style : undefined);
}

const PREFIX_TO_HISTOGRAM: ReadonlyMap<string, HistogramName> = new Map(
  Object.entries(HISTOGRAM_PREFIXES).map(([name, prefix]) => [prefix, name as HistogramName]),
);
const BUCKET_ATTRIBUTE = /^(h[lptn])(\d+)$/;

export function emptyRollup(): Rollup {
  return {
    counters: Object.fromEntries(ROLLUP_COUNTERS.map((name) => [name, 0])) as Record<RollupCounter, number>,
    maxima: {},
    histograms: { latency_ms: new Map(), ttft_ms: new Map(), prompt_tokens: new Map(), total_tokens: new Map() },
    styles: {},
  };
}

const COUNTER_NAMES: ReadonlySet<string> = new Set(ROLLUP_COUNTERS);
const MAXIMUM_NAMES: ReadonlySet<string> = new Set(ROLLUP_MAXIMA);

/** A stored item's numeric attributes read back as a rollup; unknown attributes are ignored. */
export function rollupOf(attributes: Readonly<Record<string, string | number>>): Rollup {
  const counters = emptyRollup().counters as Record<RollupCounter, number>;
  const maxima: Partial<Record<RollupMaximum, number>> = {};
  const histograms: Record<HistogramName, Map<number, number>> = {
    latency_ms: new Map(),
    ttft_ms: new Map(),
    prompt_tokens: new Map(),
    total_tokens: new Map(),
  };
  const styles: Record<string, number> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value !== 'number') continue;
    if (COUNTER_NAMES.has(name)) counters[name as RollupCounter] = value;
    else if (MAXIMUM_NAMES.has(name)) maxima[name as RollupMaximum] = value;
    else if (name.startsWith('style_')) styles[name] = value;
    else {
      const bucket = BUCKET_ATTRIBUTE.exec(name);
      const histogram = bucket === null ? undefined : PREFIX_TO_HISTOGRAM.get(bucket[1] as string);
      if (histogram !== undefined && value > 0) histograms[histogram].set(Number(bucket?.[2]), value);
    }
  }
  return { counters, maxima, histograms, styles };
}

/** The sum of two rollups: counters, buckets and style counts added, maxima the larger. */
export function addRollups(a: Rollup, b: Rollup): Rollup {
  const counters = { ...a.counters } as Record<RollupCounter, number>;
  for (const name of ROLLUP_COUNTERS) counters[name] += b.counters[name];
  const maxima: Partial<Record<RollupMaximum, number>> = { ...a.maxima };
  for (const name of ROLLUP_MAXIMA) {
    const value = b.maxima[name];
    if (value !== undefined) maxima[name] = Math.max(maxima[name] ?? value, value);
  }
  const styles: Record<string, number> = { ...a.styles };
  for (const [name, value] of Object.entries(b.styles)) styles[name] = (styles[name] ?? 0) + value;
  return {
    counters,
    maxima,
    histograms: {
      latency_ms: addHistograms(a.histograms.latency_ms, b.histograms.latency_ms),
      ttft_ms: addHistograms(a.histograms.ttft_ms, b.histograms.ttft_ms),
      prompt_tokens: addHistograms(a.histograms.prompt_tokens, b.histograms.prompt_tokens),
      total_tokens: addHistograms(a.histograms.total_tokens, b.histograms.total_tokens),
    },
    styles,
  };
}

/** The sum of many rollups (`emptyRollup()` for none). */
export function sumRollups(rollups: Iterable<Rollup>): Rollup {
  let sum = emptyRollup();
  for (const rollup of rollups) sum = addRollups(sum, rollup);
  return sum;
}
