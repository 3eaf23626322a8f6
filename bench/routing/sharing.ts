/**
 * The sharing scenario of the routing bench (issue 43 item 5): interactive users follow the trace window
 * (open loop, application `chat`) while a batch application keeps several times the fleet's slots busy
 * (closed loop: `workers` clients each sending its next request as soon as the last ended, application
 * `batch`), on the default strategy, in five runs with the same seed:
 *
 * - `interactive alone`: the trace with no batch traffic, the baseline;
 * - `batch alone`: the batch with no trace, what the fleet gives it when nobody else asks;
 * - `priorities`: both, the batch sent `low`;
 * - `fair share`: both, everything `normal`: only the turns between applications protect the trace;
 * - `first come, first served`: both, no application told apart and no priority (as before issue 43).
 *
 * The verdicts: with priorities, interactive p95 TTFT ≤ 1.5× alone, and the batch gets ≥ 80 % of the
 * capacity the trace leaves (its output tokens/s alone × the share of slot time the trace leaves free);
 * with the fair share alone, interactive p95 TTFT ≤ 3× alone; first come, first served is reported.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { formatNumber } from '../stats';
import { streamChat } from './chat-stream';
import { percentile } from './percentile';
import type { RequestRecord } from './replay';
import { type RunResult, runOnce } from './run';
import type { Scenario } from './scenario';
import type { PlannedRequest } from './workload';

export const SHARING_VARIANTS = ['interactive alone', 'batch alone', 'priorities', 'fair share', 'fcfs'] as const;
export type SharingVariant = (typeof SHARING_VARIANTS)[number];

/** What one variant measured. */
export interface VariantFigures {
  readonly variant: SharingVariant;
  readonly interactiveRequests: number;
  readonly interactiveOk: number;
  readonly interactiveTtftP50: number;
  readonly interactiveTtftP95: number;
  readonly batchCompleted: number;
  readonly batchRefused: number;
  /** The batch's output tokens per wall second over the window. */
  readonly batchTokensPerSecond: number;
  /**
   * Mean slot utilisation over the nodes during the trace's replay: what the capacity verdict reads of the
   * `interactive alone` run. Not kept for the others (the batch's closed loop outlasts the replay's span).
   */
  readonly utilisation: number | undefined;
}

export interface SharingVerdict {
  readonly goal: string;
  readonly pass: boolean | undefined;
  readonly text: string;
}

export interface SharingResult {
  readonly scenario: Scenario;
  readonly workers: number;
  readonly windowWallSeconds: number;
  readonly variants: readonly VariantFigures[];
  readonly verdicts: readonly SharingVerdict[];
  readonly ranAt: string;
}

/** The batch's closed-loop clients: each sends its next request as soon as its last ended, until `untilMs`. */
async function runBatch(
  url: string,
  batch: NonNullable<Scenario['batch']>,
  headers: Readonly<Record<string, string>>,
  workers: number,
  wallMs: number,
): Promise<{ completed: number; refused: number; outputTokens: number }> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: workers });
  const start = performance.now();
  const prompt = 'Summarise the following record for the archive. '.repeat(Math.ceil(batch.promptTokens / 10));
  let completed = 0;
  let refused = 0;
  let outputTokens = 0;
  const worker = async (id: number) => {
    for (let sent = 0; performance.now() - start < wallMs; sent++) {
      const outcome = await streamChat(dispatcher, url, {
        model: batch.model,
        // The simulated model answers as many words as a prompt asks (emulator/sim/text), as the replay's do.
        messages: [
          { role: 'user', content: `${prompt} (record ${id}-${sent}) Answer in ${batch.outputTokens} words.` },
        ],
        maxTokens: batch.outputTokens,
        headers,
      });
      // Only what the window saw counts: a request that ends after it is the next window's work.
      if (performance.now() - start > wallMs) break;
      if (outcome.status === 'ok') {
        completed += 1;
        outputTokens += outcome.outputTokens;
      } else {
        refused += 1;
        await sleep(200);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, (_, id) => worker(id)));
  } finally {
    await dispatcher.close();
  }
  return { completed, refused, outputTokens };
}

function labelled(plan: readonly PlannedRequest[], variant: SharingVariant): PlannedRequest[] {
  if (variant === 'fcfs') return [...plan];
  return plan.map((planned) => ({ ...planned, app: 'chat' }));
}

function batchHeaders(variant: SharingVariant): Record<string, string> {
  if (variant === 'fcfs') return {};
  if (variant === 'priorities') return { 'x-service-tags': 'batch', 'x-fleet-priority': 'low' };
  return { 'x-service-tags': 'batch' };
}

function figuresOf(
  variant: SharingVariant,
  records: readonly RequestRecord[],
  run: RunResult,
  batch: { completed: number; refused: number; outputTokens: number } | undefined,
  windowWallSeconds: number,
): VariantFigures {
  const ok = records.filter((record) => record.status === 'ok' && record.ttftMs !== undefined);
  const ttfts = ok.map((record) => record.ttftMs ?? 0);
  return {
    variant,
    interactiveRequests: records.length,
    interactiveOk: ok.length,
    interactiveTtftP50: ttfts.length === 0 ? Number.NaN : percentile(ttfts, 50),
    interactiveTtftP95: ttfts.length === 0 ? Number.NaN : percentile(ttfts, 95),
    batchCompleted: batch?.completed ?? 0,
    batchRefused: batch?.refused ?? 0,
    batchTokensPerSecond: batch === undefined ? 0 : batch.outputTokens / windowWallSeconds,
    utilisation: variant === 'interactive alone' ? run.utilisation : undefined,
  };
}

const ms = (value: number) => `${formatNumber(value, 0)} ms`;
/** A time, or `—` where none was measured (NaN, stored in the results file as null). */
const msOrNone = (value: number | null) => (value === null || Number.isNaN(value) ? '—' : ms(value));

export function sharingVerdicts(variants: readonly VariantFigures[]): SharingVerdict[] {
  const of = (variant: SharingVariant) => variants.find((figures) => figures.variant === variant);
  const alone = of('interactive alone');
  const batchAlone = of('batch alone');
  const priorities = of('priorities');
  const fair = of('fair share');
  const fcfs = of('fcfs');
  if (alone === undefined || batchAlone === undefined || priorities === undefined || fair === undefined) {
    return [{ goal: 'sharing', pass: undefined, text: 'a variant did not run' }];
  }
  const ratio = (figures: VariantFigures) => figures.interactiveTtftP95 / alone.interactiveTtftP95;
  const left = batchAlone.batchTokensPerSecond * (1 - (alone.utilisation ?? 0));
  const fcfsText =
    fcfs === undefined
      ? ''
      : `; first come, first served: ${ms(fcfs.interactiveTtftP95)} (${formatNumber(ratio(fcfs), 1)}×)`;
  return [
    {
      goal: 'priorities: interactive p95 TTFT',
      pass: ratio(priorities) <= 1.5,
      text: `${ms(priorities.interactiveTtftP95)} with the batch low vs ${ms(alone.interactiveTtftP95)} alone (${formatNumber(ratio(priorities), 2)}×; goal ≤ 1.5×)`,
    },
    {
      goal: 'priorities: the batch’s share',
      pass: priorities.batchTokensPerSecond >= 0.8 * left,
      text:
        `${formatNumber(priorities.batchTokensPerSecond, 1)} output tokens/s vs ${formatNumber(left, 1)} the trace leaves ` +
        `(${formatNumber(batchAlone.batchTokensPerSecond, 1)} alone × ${formatNumber((1 - (alone.utilisation ?? 0)) * 100, 0)} % of slot time free; goal ≥ 80 %: ` +
        `${formatNumber((priorities.batchTokensPerSecond / left) * 100, 0)} %)`,
    },
    {
      goal: 'fair share alone: interactive p95 TTFT',
      pass: ratio(fair) <= 3,
      text: `${ms(fair.interactiveTtftP95)} with everything normal (${formatNumber(ratio(fair), 2)}×; goal ≤ 3×)${fcfsText}`,
    },
  ];
}

export interface SharingRequest {
  readonly scenario: Scenario;
  readonly plan: readonly PlannedRequest[];
  readonly timeScale: number;
  readonly seed: number;
  readonly windowSeconds: number;
  readonly onRun?: (variant: SharingVariant, figures: VariantFigures) => void;
}

/** Runs the five variants once each, in order, on the default strategy. */
export async function benchSharing(request: SharingRequest): Promise<SharingResult> {
  const { scenario } = request;
  const batch = scenario.batch;
  if (batch === undefined) throw new Error(`${scenario.name} has no batch: not a sharing scenario`);
  const slots = scenario.nodes.reduce((sum, node) => sum + node.numParallel, 0);
  const workers = batch.workersPerSlot * slots;
  const windowWallMs = (request.windowSeconds * 1000) / request.timeScale;
  const variants: VariantFigures[] = [];
  for (const variant of SHARING_VARIANTS) {
    const withBatch = variant !== 'interactive alone';
    const plan = variant === 'batch alone' ? [] : labelled(request.plan, variant);
    let records: readonly RequestRecord[] = [];
    let batchOutcome: { completed: number; refused: number; outputTokens: number } | undefined;
    const run = await runOnce({
      strategy: 'score',
      plan,
      timeScale: request.timeScale,
      seed: request.seed,
      fleet: { simulated: scenario.nodes },
      models: [...new Set([...request.plan.map((planned) => planned.model), batch.model])],
      alongside: withBatch
        ? async (url) => {
            batchOutcome = await runBatch(url, batch, batchHeaders(variant), workers, windowWallMs);
          }
        : undefined,
      onRecords: (found) => {
        records = found;
      },
    });
    const figures = figuresOf(variant, records, run, batchOutcome, windowWallMs / 1000);
    variants.push(figures);
    request.onRun?.(variant, figures);
  }
  return {
    scenario,
    workers,
    windowWallSeconds: windowWallMs / 1000,
    variants,
    verdicts: sharingVerdicts(variants),
    ranAt: new Date().toISOString(),
  };
}

/** The report's section on the sharing scenario: what ran, each variant's figures, the verdicts. */
export function sharingSection(result: SharingResult): string {
  const rows = result.variants.map(
    (figures) =>
      `| ${figures.variant} | ${figures.interactiveOk}/${figures.interactiveRequests} | ${msOrNone(figures.interactiveTtftP50)} | ` +
      `${msOrNone(figures.interactiveTtftP95)} | ${figures.batchCompleted} | ${figures.batchRefused} | ` +
      `${formatNumber(figures.batchTokensPerSecond, 1)} | ${figures.variant !== 'interactive alone' || figures.utilisation === undefined ? '—' : `${formatNumber(figures.utilisation * 100, 0)} %`} |`,
  );
  const verdicts = result.verdicts.map(
    (verdict) =>
      `- **${verdict.pass === undefined ? 'UNDECIDED' : verdict.pass ? 'PASS' : 'FAIL'}** ${verdict.goal}: ${verdict.text}`,
  );
  const batch = result.scenario.batch;
  return [
    `## (${result.scenario.name.charAt(0)}) ${result.scenario.title}`,
    result.scenario.about,
    `Interactive users replay the trace window (application \`chat\`); a batch application keeps ${result.workers} requests going at once (${batch?.workersPerSlot ?? '?'} per slot of the fleet: several times what it can run), each a ${batch?.promptTokens ?? '?'}-token prompt asking ${batch?.outputTokens ?? '?'} tokens of \`${batch?.model ?? '?'}\`, for the window's ${formatNumber(result.windowWallSeconds, 0)} wall seconds. One run per variant, the same seed, the default strategy; measured ${result.ranAt.slice(0, 10)}.`,
    '| variant | interactive ok | interactive TTFT p50 | p95 | batch done | batch refused | batch output tok/s | slot use by the trace |\n|---|---|---|---|---|---|---|---|\n' +
      rows.join('\n'),
    verdicts.join('\n'),
  ].join('\n\n');
}
