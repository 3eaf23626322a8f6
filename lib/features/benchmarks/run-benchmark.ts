/**
 * A benchmark run, start to report (issue 22 item 6; anchor §6.6 and its §9 failures): the run's load on
 * the fleet's models — bounded request loops per model and node (../../core/benchmarks/benchmark-targets),
 * each backing off after a failure so a failing node sees no retry storm — written to the table about
 * once a second (progress any instance reads), with the operator's cancel read back at the same pace.
 * When the duration is up the loops stop, in-flight requests get `BENCHMARK_DRAIN_MS` to finish and are
 * then cancelled, and the report is saved; the fleet-wide lock is given back however the run ends.
 */
import {
  type BenchmarkSample,
  buildBenchmarkReport,
  type PeakUtilisation,
  perSecond,
} from '../../core/benchmarks/benchmark-report';
import { BENCHMARK_DRAIN_MS, type BenchmarkRun } from '../../core/benchmarks/benchmark-run';
import { type BenchmarkTarget, benchmarkTargets } from '../../core/benchmarks/benchmark-targets';
import type { FleetSnapshot } from '../../core/fleet/node';
import type { QueueEntry } from '../../core/fleet/queue-entry';
import type { ConcurrencyOverrides } from '../../core/scoring/concurrency-limit';
import type { BenchmarkRepository } from '../../services/store/benchmark-repository';
import { type BenchmarkRequestDeps, benchmarkRequest } from './benchmark-requests';

export interface BenchmarkRunnerDeps extends BenchmarkRequestDeps {
  readonly benchmarks: BenchmarkRepository;
  readonly snapshot: () => FleetSnapshot | Promise<FleetSnapshot>;
  /** Every instance's queues (in flight and slots), for the peak utilisation. */
  readonly queueView: (now: number) => Promise<readonly QueueEntry[]>;
  readonly concurrencyOverrides?: ConcurrencyOverrides;
}

export interface RunnerTiming {
  /** How often progress is written and the cancel read. Default 1000 ms. */
  readonly tickMs?: number;
  readonly drainMs?: number;
}

/** The longest a request loop waits after failures in a row (250 ms, doubling). */
const MAX_BACKOFF_MS = 5_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** Runs `runId` (saved by `start`, status running) to its end; never throws for the run's own failures. */
export async function runBenchmark(deps: BenchmarkRunnerDeps, runId: string, timing: RunnerTiming = {}): Promise<void> {
  const run = await deps.benchmarks.get(runId);
  if (run === undefined || run.status !== 'running') return;
  try {
    await load(deps, run, timing);
  } catch (error) {
    const now = new Date().toISOString();
    const message = error instanceof Error ? error.message : String(error);
    await deps.benchmarks.save({
      ...run,
      status: 'error',
      phase: 'error',
      error: message,
      updated_at: now,
      finished_at: now,
    });
  } finally {
    await deps.benchmarks.release(runId);
  }
}

async function load(deps: BenchmarkRunnerDeps, run: BenchmarkRun, timing: RunnerTiming): Promise<void> {
  const targets = benchmarkTargets(await deps.snapshot(), run.model_types, deps.concurrencyOverrides);
  if (targets.length === 0) {
    throw new Error(`no ${run.model_types.join(' or ')} model is ready on an online node to benchmark`);
  }
  const samples: BenchmarkSample[] = [];
  const stopLoops = new AbortController();
  const cancelRequests = new AbortController();
  const startedAt = Date.now();
  let sequence = 0;
  const loop = async (target: BenchmarkTarget) => {
    let failures = 0;
    while (!stopLoops.signal.aborted) {
      const request = { runId: run.run_id, sequence: sequence++, type: target.type, model: target.model };
      const sample = await benchmarkRequest(deps, { ...request, signal: cancelRequests.signal });
      samples.push(sample);
      failures = sample.ok ? 0 : failures + 1;
      if (failures > 0) await sleep(Math.min(MAX_BACKOFF_MS, 250 * 2 ** (failures - 1)), stopLoops.signal);
    }
  };
  const loops = Promise.all(targets.flatMap((target) => Array.from({ length: target.workers }, () => loop(target))));
  const progress = (fields: Partial<BenchmarkRun>): BenchmarkRun => {
    const elapsedMs = Date.now() - startedAt;
    const completed = samples.filter((sample) => sample.ok);
    const tokens = completed.reduce((sum, sample) => sum + (sample.completionTokens ?? 0), 0);
    return {
      ...run,
      phase: 'running',
      elapsed: Math.round(elapsedMs / 100) / 10,
      requests_completed: completed.length,
      requests_failed: samples.length - completed.length,
      tok_per_sec: perSecond(tokens, elapsedMs / 1000),
      models: targets.map((target) => target.model),
      updated_at: new Date().toISOString(),
      ...fields,
    };
  };
  const peak = createPeakTracker();
  let cancelled = true;
  try {
    cancelled = await watch(deps, run, timing.tickMs ?? 1000, peak, progress, startedAt);
  } finally {
    // However the watch ended (a failure too), the load stops: no loop outlives its run.
    stopLoops.abort();
    if (cancelled) cancelRequests.abort();
  }
  if (!cancelled) await deps.benchmarks.save(progress({ phase: 'draining' })).catch(() => {});
  const drain = setTimeout(() => cancelRequests.abort(), timing.drainMs ?? BENCHMARK_DRAIN_MS);
  await loops;
  clearTimeout(drain);
  const report = buildBenchmarkReport(samples, Date.now() - startedAt, peak.result());
  const status = cancelled ? 'cancelled' : 'complete';
  await deps.benchmarks.save(progress({ status, phase: status, finished_at: new Date().toISOString(), report }));
}

/**
 * Writes progress and reads the cancel once a tick until the duration is up (false) or the run was
 * cancelled (true), sampling the queues for the peak utilisation.
 */
async function watch(
  deps: BenchmarkRunnerDeps,
  run: BenchmarkRun,
  tickMs: number,
  peak: PeakTracker,
  progress: (fields: Partial<BenchmarkRun>) => BenchmarkRun,
  startedAt: number,
): Promise<boolean> {
  const never = new AbortController().signal;
  const endsAt = startedAt + run.duration * 1000;
  while (Date.now() < endsAt) {
    await sleep(Math.min(tickMs, endsAt - Date.now()), never);
    peak.observe(await deps.queueView(Date.now()).catch(() => []));
    // A table call that fails this tick is tried again the next: the run is bounded by its duration anyway.
    if (await deps.benchmarks.cancelRequested(run.run_id).catch(() => false)) return true;
    await deps.benchmarks.save(progress({})).catch(() => {});
  }
  return false;
}

interface PeakTracker {
  observe(queues: readonly QueueEntry[]): void;
  result(): PeakUtilisation;
}

/**
 * The highest in-flight / slots seen, fleet-wide and per node. Each instance publishes its own queue of a
 * node's model: their in-flight counts add up, the slots are the node's one limit (not one per instance).
 */
function createPeakTracker(): PeakTracker {
  let fleet: number | null = null;
  const perNode: Record<string, number> = {};
  return {
    observe(queues) {
      const byQueue = new Map<string, { nodeId: string; inFlight: number; slots: number }>();
      for (const queue of queues) {
        const key = `${queue.nodeId}\n${queue.model}`;
        const seen = byQueue.get(key) ?? { nodeId: queue.nodeId, inFlight: 0, slots: 0 };
        seen.inFlight += queue.inFlight;
        seen.slots = Math.max(seen.slots, queue.concurrency);
        byQueue.set(key, seen);
      }
      const byNode = new Map<string, { inFlight: number; slots: number }>();
      const total = { inFlight: 0, slots: 0 };
      for (const queue of byQueue.values()) {
        const node = byNode.get(queue.nodeId) ?? { inFlight: 0, slots: 0 };
        for (const sum of [node, total]) {
          sum.inFlight += queue.inFlight;
          sum.slots += queue.slots;
        }
        byNode.set(queue.nodeId, node);
      }
      if (total.slots > 0) fleet = Math.max(fleet ?? 0, ratio(total.inFlight, total.slots));
      for (const [nodeId, node] of byNode) {
        if (node.slots > 0) perNode[nodeId] = Math.max(perNode[nodeId] ?? 0, ratio(node.inFlight, node.slots));
      }
    },
    result: () => ({ fleet, per_node: { ...perNode } }),
  };
}

const ratio = (part: number, whole: number) => Math.round((part / whole) * 1000) / 1000;
