/**
 * The benchmark routes of the operator API (issue 22 item 6; anchor §6.6 shapes): `start` takes the
 * fleet-wide lock (409 naming the running run while one holds it), saves the run and launches
 * it (./run-benchmark, here or as an invocation of its own: lib/services/benchmarks/benchmark-launcher);
 * `progress`, `cancel`, the list and one run read and write the table, so any instance answers them.
 * Start and cancel take an operator key (functions/dashboard.ts) and are traced with it (issue 46).
 */
import { randomBytes } from 'node:crypto';
import { integerParam } from '../../core/analytics/window';
import {
  BENCHMARK_DRAIN_MS,
  type BenchmarkRun,
  type BenchmarkStart,
  benchmarkRunId,
  benchmarkRunView,
  IDLE_PROGRESS,
  isBenchmarkRunId,
  parseBenchmarkStart,
} from '../../core/benchmarks/benchmark-run';
import { BadRequestError, ConflictError, NotFoundError } from '../../core/errors';
import { tracedChange } from '../../services/analytics/change-trace';
import type { TraceRecorder } from '../../services/analytics/trace';
import type { BenchmarkLauncher } from '../../services/benchmarks/benchmark-launcher';
import { readJson } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { BenchmarkRepository } from '../../services/store/benchmark-repository';

export interface BenchmarkRoutesDeps {
  readonly benchmarks: BenchmarkRepository;
  readonly benchmarkLauncher: BenchmarkLauncher;
  /** Runs a saved run to its end in this process (`runBenchmark` over the instance's services). */
  readonly runBenchmark: (runId: string) => Promise<void>;
  /** Where a start and a cancel are traced, with the key that asked (issue 46). */
  readonly traces: TraceRecorder;
  readonly clock?: () => number;
}

/** The lock outlives a run's longest life by this much before a dead runner's lock lapses. */
const LOCK_MARGIN_MS = 120_000;
const DEFAULT_LIST = 50;
const MAX_LIST = 200;

/** The running run's progress (or the last run's), as `progress` answers it. */
async function currentProgress(deps: BenchmarkRoutesDeps, now: number): Promise<BenchmarkRun | undefined> {
  const holder = await deps.benchmarks.holder();
  const run = holder !== undefined ? await deps.benchmarks.get(holder) : (await deps.benchmarks.list(1))[0];
  return run === undefined ? undefined : benchmarkRunView(run, now);
}

export async function serveBenchmarkStart(deps: BenchmarkRoutesDeps, request: HttpRequest, response: ResponseSink) {
  const start = parseBenchmarkStart(request.bodyText().length === 0 ? undefined : readJson(request));
  const started = await tracedChange(deps.traces, { request, style: 'benchmark-start' }, () => startRun(deps, start));
  await sendJson(response, started);
}

/** Takes the lock, saves the run and launches it; answers what `start` replies. */
async function startRun(deps: BenchmarkRoutesDeps, start: BenchmarkStart) {
  const now = (deps.clock ?? Date.now)();
  const runId = benchmarkRunId(now, randomBytes(4).toString('hex'));
  const lockedUntil = now + start.duration * 1000 + BENCHMARK_DRAIN_MS + LOCK_MARGIN_MS;
  if (!(await acquire(deps, runId, now, lockedUntil))) {
    // The family's error shape, as every other error (the running run's progress is one GET away).
    const holder = await deps.benchmarks.holder();
    throw new ConflictError(
      `Benchmark already running${holder === undefined ? '' : ` (${holder})`}: see GET /dashboard/api/benchmarks/progress`,
    );
  }
  const at = new Date(now).toISOString();
  const run: BenchmarkRun = {
    run_id: runId,
    mode: start.mode,
    duration: start.duration,
    model_types: start.modelTypes,
    status: 'running',
    phase: 'starting',
    elapsed: 0,
    requests_completed: 0,
    requests_failed: 0,
    tok_per_sec: 0,
    models: [],
    error: null,
    started_at: at,
    updated_at: at,
    finished_at: null,
    report: null,
  };
  await deps.benchmarks.save(run);
  try {
    await deps.benchmarkLauncher.launch(runId, () => deps.runBenchmark(runId));
  } catch (error) {
    const message = `the run could not be launched: ${error instanceof Error ? error.message : String(error)}`;
    await deps.benchmarks.save({ ...run, status: 'error', phase: 'error', error: message, finished_at: at });
    await deps.benchmarks.release(runId);
    throw error;
  }
  return {
    status: 'started',
    run_id: runId,
    mode: start.mode,
    duration: start.duration,
    model_types: start.modelTypes,
  };
}

/** The lock, taking it over from a holder whose run stopped reporting (its runner died, the lock not yet lapsed). */
async function acquire(deps: BenchmarkRoutesDeps, runId: string, now: number, until: number): Promise<boolean> {
  if (await deps.benchmarks.acquire(runId, now, until)) return true;
  const holder = await deps.benchmarks.holder();
  const held = holder === undefined ? undefined : await deps.benchmarks.get(holder);
  if (holder === undefined || held === undefined || benchmarkRunView(held, now).status !== 'error') return false;
  await deps.benchmarks.save({ ...benchmarkRunView(held, now), finished_at: new Date(now).toISOString() });
  await deps.benchmarks.release(holder);
  return deps.benchmarks.acquire(runId, now, until);
}

export async function serveBenchmarkProgress(deps: BenchmarkRoutesDeps, _request: HttpRequest, response: ResponseSink) {
  const run = await currentProgress(deps, (deps.clock ?? Date.now)());
  if (run === undefined) {
    await sendJson(response, { ...IDLE_PROGRESS, run_id: null });
    return;
  }
  const { report: _report, ...progress } = run;
  await sendJson(response, progress);
}

export async function serveBenchmarkCancel(deps: BenchmarkRoutesDeps, request: HttpRequest, response: ResponseSink) {
  const answer = await tracedChange(deps.traces, { request, style: 'benchmark-cancel' }, () => cancelRun(deps));
  await sendJson(response, answer);
}

/** Asks the running run to stop; answers what `cancel` replies. */
async function cancelRun(deps: BenchmarkRoutesDeps) {
  const now = (deps.clock ?? Date.now)();
  const holder = await deps.benchmarks.holder();
  const run = holder === undefined ? undefined : await deps.benchmarks.get(holder);
  if (holder === undefined || run === undefined || benchmarkRunView(run, now).status !== 'running') {
    return { status: 'not_running' };
  }
  await deps.benchmarks.requestCancel(holder, now);
  return { status: 'cancelled', run_id: holder };
}

export async function serveBenchmarkList(deps: BenchmarkRoutesDeps, request: HttpRequest, response: ResponseSink) {
  const limit = integerParam(request.query, 'limit', DEFAULT_LIST, 1, MAX_LIST);
  const now = (deps.clock ?? Date.now)();
  const runs = await deps.benchmarks.list(limit);
  await sendJson(response, { data: runs.map((run) => benchmarkRunView(run, now)) });
}

export async function serveBenchmarkRun(deps: BenchmarkRoutesDeps, request: HttpRequest, response: ResponseSink) {
  const runId = request.pathParameters['run_id'] ?? '';
  if (!isBenchmarkRunId(runId)) throw new BadRequestError(`run_id "${runId}" is not a benchmark run id`, 'run_id');
  const run = await deps.benchmarks.get(runId);
  if (run === undefined) throw new NotFoundError(`no benchmark run ${runId}`);
  await sendJson(response, { data: benchmarkRunView(run, (deps.clock ?? Date.now)()) });
}
