/**
 * A benchmark run as the table keeps it and the operator API answers it (issue 22 item 6; anchor §6.6):
 * the reference's progress fields (`status`, `phase`, `elapsed`, `duration`, `requests_completed`,
 * `requests_failed`, `tok_per_sec`, `models`, `run_id`, `error`), what the run was asked for, its times
 * and, once it ended, its report. The start request is validated here, and a run whose runner stopped
 * writing is reported as the error it is. Pure.
 */
import { BadRequestError } from '../errors';
import type { BenchmarkModelType, BenchmarkReport } from './benchmark-report';

export type BenchmarkStatus = 'running' | 'complete' | 'cancelled' | 'error';

export interface BenchmarkRun {
  readonly run_id: string;
  readonly mode: BenchmarkMode;
  /** Seconds of load asked for. */
  readonly duration: number;
  readonly model_types: readonly BenchmarkModelType[];
  readonly status: BenchmarkStatus;
  /** What the run is doing, in words: `starting`, `running`, `draining`, `complete`, … */
  readonly phase: string;
  /** Seconds since the load started (0 before it does). */
  readonly elapsed: number;
  readonly requests_completed: number;
  readonly requests_failed: number;
  readonly tok_per_sec: number;
  /** The models under load. */
  readonly models: readonly string[];
  readonly error: string | null;
  /** ISO 8601. */
  readonly started_at: string;
  /** ISO 8601: the runner's last write; a running run whose writes stopped is reported as failed. */
  readonly updated_at: string;
  readonly finished_at: string | null;
  readonly report: BenchmarkReport | null;
}

export const BENCHMARK_MODES = ['default'] as const;
export type BenchmarkMode = (typeof BENCHMARK_MODES)[number];
export const BENCHMARK_MODEL_TYPES: readonly BenchmarkModelType[] = ['llm', 'embed', 'image'];

/** The reference's default run length, seconds. */
export const DEFAULT_BENCHMARK_DURATION_S = 300;
/**
 * The longest run, seconds: in AWS a run is one asynchronous invocation of at most 900 s, which must also
 * hold the start-up, the drain (`BENCHMARK_DRAIN_MS`) and saving the report.
 */
export const MAX_BENCHMARK_DURATION_S = 840;
/** How long in-flight requests may finish after the load stops before they are cancelled. */
export const BENCHMARK_DRAIN_MS = 30_000;
/** A running run not written for this long lost its runner (a crash, an invocation cut short). */
export const BENCHMARK_STALE_MS = 30_000;

export interface BenchmarkStart {
  readonly mode: BenchmarkMode;
  readonly duration: number;
  readonly modelTypes: readonly BenchmarkModelType[];
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? Reflect.get(body, name) : undefined;
}

/** The body of `POST …/benchmarks/start`; a 400 naming the field on anything else. An empty body takes the defaults. */
export function parseBenchmarkStart(body: unknown): BenchmarkStart {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new BadRequestError('the request body must be a JSON object');
  }
  const mode = field(body, 'mode') ?? 'default';
  if (!BENCHMARK_MODES.includes(mode as BenchmarkMode)) {
    throw new BadRequestError(`mode must be one of: ${BENCHMARK_MODES.join(', ')}`, 'mode');
  }
  const duration = field(body, 'duration') ?? DEFAULT_BENCHMARK_DURATION_S;
  if (typeof duration !== 'number' || !Number.isInteger(duration) || duration < 1) {
    throw new BadRequestError('duration must be a whole number of seconds, at least 1', 'duration');
  }
  if (duration > MAX_BENCHMARK_DURATION_S) {
    throw new BadRequestError(
      `duration must be at most ${MAX_BENCHMARK_DURATION_S} seconds (a run is one Lambda invocation of at most 900 s, with its drain and report)`,
      'duration',
    );
  }
  const types = field(body, 'model_types') ?? ['llm'];
  if (
    !Array.isArray(types) ||
    types.length === 0 ||
    !types.every((type) => BENCHMARK_MODEL_TYPES.includes(type as BenchmarkModelType))
  ) {
    throw new BadRequestError(
      `model_types must be a non-empty list of: ${BENCHMARK_MODEL_TYPES.join(', ')}`,
      'model_types',
    );
  }
  return { mode: mode as BenchmarkMode, duration, modelTypes: [...new Set(types as BenchmarkModelType[])] };
}

/** `bench-<epoch ms>-<suffix>`: sorts by start time as text, so the newest runs are read first by key. */
export function benchmarkRunId(startedAtMs: number, suffix: string): string {
  return `bench-${String(startedAtMs).padStart(13, '0')}-${suffix}`;
}

const RUN_ID = /^bench-\d{13}-[0-9a-z]{1,16}$/;

export function isBenchmarkRunId(value: string): boolean {
  return RUN_ID.test(value);
}

/** The run as the API reports it at `now`: a running run that stopped writing is an error, not running forever. */
export function benchmarkRunView(run: BenchmarkRun, now: number): BenchmarkRun {
  if (run.status !== 'running' || now - Date.parse(run.updated_at) <= BENCHMARK_STALE_MS) return run;
  return {
    ...run,
    status: 'error',
    phase: 'stopped reporting',
    error: `the run stopped reporting progress at ${run.updated_at} (its runner ended before it finished)`,
  };
}

/** What `progress` answers before any run. */
export const IDLE_PROGRESS = { status: 'idle', phase: 'No benchmark has been run' } as const;
