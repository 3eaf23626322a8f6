/**
 * Health checks on context windows (issue 22 item 3; the context-usage record of spec §2): a model
 * loaded with far more context than its requests use (memory held by KV cache for nothing), and
 * requests larger than the context a model is loaded with (truncated, or a reload). Allocated is the
 * largest context among the model's loaded copies; used is the p99 of total tokens (±4.4 %) and the
 * 24 h maximum; recommended is the next power of two ≥ 1.5 × the larger, as the reference computes it.
 * Waste fires only on large allocations, so a default 4 K context never does. Pure.
 */
import { histogramCount, percentile } from '../analytics/histogram';
import { finding, type HealthChecks } from './health-finding';
import { sumsBy } from './health-inputs';
import { placementsOf } from './placements';

export const CONTEXT_MIN_REQUESTS = 10;
export const WASTE_INFO_RATIO = 4;
export const WASTE_INFO_MIN_TOKENS = 16_384;
export const WASTE_WARNING_RATIO = 8;
export const WASTE_WARNING_MIN_TOKENS = 32_768;

export function recommendedContext(used: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, 1.5 * used)));
}

interface ContextUse {
  readonly model: string;
  readonly allocated: number;
  readonly p99: number;
  readonly max: number;
  readonly requests: number;
}

function contextUses(inputs: Parameters<HealthChecks[string]>[0]): ContextUse[] {
  const uses: ContextUse[] = [];
  for (const [model, { day }] of sumsBy(inputs.traffic.modelHours, (row) => row.model, inputs.now)) {
    const contexts = placementsOf(inputs.snapshot, model).flatMap((placement) =>
      placement.loaded?.contextLength === undefined ? [] : [placement.loaded.contextLength],
    );
    const requests = histogramCount(day.histograms.total_tokens);
    const max = day.maxima.max_total_tokens;
    const p99 = percentile(day.histograms.total_tokens, 0.99, max);
    if (contexts.length === 0 || requests < CONTEXT_MIN_REQUESTS || p99 === undefined || max === undefined) continue;
    uses.push({ model, allocated: Math.max(...contexts), p99: Math.round(p99), max, requests });
  }
  return uses;
}

export const CONTEXT_CHECKS: HealthChecks = {
  context_waste: (inputs) =>
    contextUses(inputs).flatMap(({ model, allocated, p99, max, requests }) => {
      const recommended = recommendedContext(Math.max(p99, max));
      const ratio = allocated / recommended;
      const warning = ratio >= WASTE_WARNING_RATIO && allocated >= WASTE_WARNING_MIN_TOKENS;
      if (!warning && !(ratio >= WASTE_INFO_RATIO && allocated >= WASTE_INFO_MIN_TOKENS)) return [];
      return [
        finding('context_waste', {
          severity: warning ? 'warning' : 'info',
          title: `${model} is loaded with ${Math.round(ratio)}× the context it uses`,
          description: `${model} is loaded with ${allocated} tokens of context; its requests used at most ${max} (p99 ${p99}, ±4.4 %) over ${requests} requests in 24 h.`,
          fix: `Load it with num_ctx ${recommended} (OLLAMA_CONTEXT_LENGTH on its nodes): the KV cache memory goes to other models.`,
          data: {
            model,
            allocated_ctx: allocated,
            p99_total_tokens: p99,
            max_total_tokens: max,
            recommended_ctx: recommended,
          },
        }),
      ];
    }),
  context_overflow: (inputs) =>
    contextUses(inputs).flatMap(({ model, allocated, p99, max, requests }) =>
      max <= allocated
        ? []
        : [
            finding('context_overflow', {
              severity: 'warning',
              title: `Requests to ${model} outgrow its ${allocated}-token context`,
              description: `The largest request to ${model} in 24 h held ${max} tokens, more than the ${allocated} it is loaded with: it was cut or forced a reload.`,
              fix: `Load ${model} with num_ctx ${recommendedContext(Math.max(p99, max))}, or keep clients' prompts shorter.`,
              data: {
                model,
                allocated_ctx: allocated,
                max_total_tokens: max,
                p99_total_tokens: p99,
                requests_24h: requests,
              },
            }),
          ],
    ),
};
