/**
 * A benchmark run's report (issue 22 item 6; anchor §6.6): from every request the run made, requests/s,
 * tokens/s, latency, time to first token and decode rate per model and per node, exact percentiles over
 * the raw samples (./sample-percentiles), and the peak utilisation the runner observed. Pure.
 */
import { type SampleSummary, summariseSamples } from './sample-percentiles';

/** What a run loads: chat streaming, embeddings, image generation. */
export type BenchmarkModelType = 'llm' | 'embed' | 'image';

/** One request the run made. */
export interface BenchmarkSample {
  readonly type: BenchmarkModelType;
  readonly model: string;
  /** The node that served it (or failed it); undefined when no node was reached. */
  readonly nodeId: string | undefined;
  readonly ok: boolean;
  readonly latencyMs: number;
  /** Streamed chat: from the request to the node's first line. */
  readonly ttftMs?: number;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  /** The node's own decode rate: `eval_count / eval_duration` of its final line. */
  readonly decodeTokensPerSec?: number;
}

export interface BenchmarkStats {
  readonly requests_completed: number;
  readonly requests_failed: number;
  readonly requests_per_sec: number;
  /** Completion tokens per second of the run's wall time. */
  readonly tok_per_sec: number;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly latency_ms: SampleSummary | null;
  readonly ttft_ms: SampleSummary | null;
  readonly decode_tok_per_sec: SampleSummary | null;
}

/** In-flight requests over queue slots, at the highest the runner saw (1 = every slot busy). */
export interface PeakUtilisation {
  readonly fleet: number | null;
  readonly per_node: Readonly<Record<string, number>>;
}

export interface BenchmarkReport extends BenchmarkStats {
  readonly elapsed_s: number;
  /** Percentiles are over every sample the run kept: exact, no bucket bound. */
  readonly percentiles: 'exact (linear interpolation over raw samples)';
  readonly per_model: Readonly<Record<string, BenchmarkStats & { readonly type: BenchmarkModelType }>>;
  readonly per_node: Readonly<Record<string, BenchmarkStats>>;
  readonly peak_utilisation: PeakUtilisation;
}

function statsOf(samples: readonly BenchmarkSample[], elapsedS: number): BenchmarkStats {
  const completed = samples.filter((sample) => sample.ok);
  let promptTokens = 0;
  let completionTokens = 0;
  for (const sample of completed) {
    promptTokens += sample.promptTokens ?? 0;
    completionTokens += sample.completionTokens ?? 0;
  }
  const defined = (values: readonly (number | undefined)[]) => values.filter((value) => value !== undefined);
  return {
    requests_completed: completed.length,
    requests_failed: samples.length - completed.length,
    requests_per_sec: perSecond(completed.length, elapsedS),
    tok_per_sec: perSecond(completionTokens, elapsedS),
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    latency_ms: summariseSamples(completed.map((sample) => sample.latencyMs)),
    ttft_ms: summariseSamples(defined(completed.map((sample) => sample.ttftMs))),
    decode_tok_per_sec: summariseSamples(defined(completed.map((sample) => sample.decodeTokensPerSec))),
  };
}

/** A rate over the run's wall time, two decimals; 0 for a run that took no time. */
export function perSecond(count: number, elapsedS: number): number {
  return elapsedS > 0 ? Math.round((count / elapsedS) * 100) / 100 : 0;
}

function groupBy(samples: readonly BenchmarkSample[], key: (sample: BenchmarkSample) => string | undefined) {
  const groups = new Map<string, BenchmarkSample[]>();
  for (const sample of samples) {
    const name = key(sample);
    if (name === undefined) continue;
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [sample]);
    else group.push(sample);
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export function buildBenchmarkReport(
  samples: readonly BenchmarkSample[],
  elapsedMs: number,
  peak: PeakUtilisation,
): BenchmarkReport {
  const elapsedS = elapsedMs / 1000;
  return {
    elapsed_s: Math.round(elapsedS * 1000) / 1000,
    percentiles: 'exact (linear interpolation over raw samples)',
    ...statsOf(samples, elapsedS),
    per_model: Object.fromEntries(
      groupBy(samples, (sample) => sample.model).map(([model, group]) => [
        model,
        { type: (group[0] as BenchmarkSample).type, ...statsOf(group, elapsedS) },
      ]),
    ),
    // A request no node took (nothing to route to) counts for the fleet and its model, not for a node.
    per_node: Object.fromEntries(
      groupBy(samples, (sample) => sample.nodeId).map(([node, group]) => [node, statsOf(group, elapsedS)]),
    ),
    peak_utilisation: peak,
  };
}
