/**
 * Health checks on context windows (issue 22 item 3; the context-usage record of spec §2): a model
 * loaded with far more context than its requests use (memory held by KV cache for nothing), and
 * requests larger than the context a model is loaded with (truncated, or a reload). Allocated is the
 * largest context among the model's loaded copies; used is the p99 of total tokens (±4.4 %) and the
 * 24 h maximum. The size advised is the context-usage record's (lib/core/analytics/context-usage
 * `contextForUse`): 1.5 × the larger, up to a power of two, never below Ollama's default (4,096).
 *
 * Advice to shrink a context is given only from `MIN_SIZING_REQUESTS` requests of the model in 24 h
 * (issue 44 item 1: a day of 24 short requests once advised "num_ctx 64"): a few requests say little
 * about the next day's largest, and a context too small cuts prompts. Waste fires only on large
 * allocations, so a default 4 K context never does. An overflow is reported from any request (it
 * happened), with a size only from the minimum on. Pure.
 */

import { contextForUse, MIN_SIZING_REQUESTS } from '../analytics/context-usage';
import { histogramCount, percentile } from '../analytics/histogram';
import { finding, type HealthChecks } from './health-finding';
import { type HealthInputs, sumsBy } from './health-inputs';
import { placementsOf } from './placements';
import { firstReason, noTraffic } from './skip-reasons';

export const WASTE_INFO_RATIO = 4;
export const WASTE_INFO_MIN_TOKENS = 16_384;
export const WASTE_WARNING_RATIO = 8;
export const WASTE_WARNING_MIN_TOKENS = 32_768;

interface ContextUse {
  readonly model: string;
  readonly allocated: number;
  readonly p99: number;
  readonly max: number;
  readonly requests: number;
}

/** Each model loaded with a context its node reports, with the token counts of its requests in 24 h. */
function contextUses(inputs: HealthInputs): ContextUse[] {
  const uses: ContextUse[] = [];
  for (const [model, { day }] of sumsBy(inputs.traffic.modelHours, (row) => row.model, inputs.now)) {
    const contexts = placementsOf(inputs.snapshot, model).flatMap((placement) =>
      placement.loaded?.contextLength === undefined ? [] : [placement.loaded.contextLength],
    );
    const requests = histogramCount(day.histograms.total_tokens);
    const max = day.maxima.max_total_tokens;
    const p99 = percentile(day.histograms.total_tokens, 0.99, max);
    if (contexts.length === 0 || requests === 0 || p99 === undefined || max === undefined) continue;
    uses.push({ model, allocated: Math.max(...contexts), p99: Math.round(p99), max, requests });
  }
  return uses;
}

const noMeasuredModel = (inputs: HealthInputs) =>
  contextUses(inputs).length === 0
    ? 'no model with measured requests in 24 h is loaded with a context its node reports'
    : undefined;

const tooFewToSize = (inputs: HealthInputs) =>
  contextUses(inputs).some((use) => use.requests >= MIN_SIZING_REQUESTS)
    ? undefined
    : `no loaded model had the ${MIN_SIZING_REQUESTS} requests in 24 h its context is sized from`;

export const CONTEXT_CHECKS: HealthChecks = {
  context_waste: {
    title: 'Contexts sized to their use',
    severity: 'warning',
    skip: firstReason(noTraffic, noMeasuredModel, tooFewToSize),
    run: (inputs) =>
      contextUses(inputs).flatMap(({ model, allocated, p99, max, requests }) => {
        if (requests < MIN_SIZING_REQUESTS) return [];
        const recommended = contextForUse(Math.max(p99, max));
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
              requests_24h: requests,
              recommended_ctx: recommended,
            },
          }),
        ];
      }),
  },
  context_overflow: {
    title: 'Requests within their context',
    severity: 'warning',
    skip: firstReason(noTraffic, noMeasuredModel),
    run: (inputs) =>
      contextUses(inputs).flatMap(({ model, allocated, p99, max, requests }) => {
        if (max <= allocated) return [];
        const sized = requests >= MIN_SIZING_REQUESTS;
        const recommended = contextForUse(Math.max(p99, max));
        return [
          finding('context_overflow', {
            severity: 'warning',
            title: `Requests to ${model} outgrow its ${allocated}-token context`,
            description: `The largest request to ${model} in 24 h held ${max} tokens, more than the ${allocated} it is loaded with: it was cut or forced a reload.`,
            fix: sized
              ? `Load ${model} with num_ctx ${recommended}, or keep clients' prompts shorter.`
              : `Load ${model} with a context above ${max} tokens, or keep clients' prompts shorter (${requests} requests in 24 h are too few to size it from; ${MIN_SIZING_REQUESTS} are).`,
            data: {
              model,
              allocated_ctx: allocated,
              max_total_tokens: max,
              p99_total_tokens: p99,
              requests_24h: requests,
              recommended_ctx: sized ? recommended : null,
            },
          }),
        ];
      }),
  },
};
