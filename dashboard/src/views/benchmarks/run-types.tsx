/**
 * What the Benchmarks view reads and sends (issue 22 item 6 shapes, lib/core/benchmarks/): the start
 * request's choices as the API names them, a run, and the progress answer. The choices are written out
 * here because the page may not bundle server code; the `satisfies` checks keep them in step with the API's
 * types, so a mode or model type added there fails the page's type-check until it is offered here.
 */
import type { BenchmarkModelType } from '../../../../lib/core/benchmarks/benchmark-report';
import type { BenchmarkMode, BenchmarkRun } from '../../../../lib/core/benchmarks/benchmark-run';

export type { BenchmarkMode, BenchmarkModelType, BenchmarkRun };

/** The modes `start` accepts (BENCHMARK_MODES), with their names in the form. */
export const MODE_LABELS = { default: 'Default' } as const satisfies Record<BenchmarkMode, string>;

/** The model types `start` accepts (BENCHMARK_MODEL_TYPES), with their names in the form. */
export const MODEL_TYPE_LABELS = {
  llm: 'Chat',
  embed: 'Embeddings',
  image: 'Images',
} as const satisfies Record<BenchmarkModelType, string>;

/** The duration's bounds, seconds (`start` refuses others: MAX_BENCHMARK_DURATION_S), and its default. */
export const MIN_DURATION_S = 1;
export const MAX_DURATION_S = 840;
export const DEFAULT_DURATION_S = 300;

/** `GET api/benchmarks/progress`: the running (or last) run without its report, or idle before any run. */
export type Progress =
  | Omit<BenchmarkRun, 'report'>
  | { readonly status: 'idle'; readonly phase: string; readonly run_id: null };

export type ActiveProgress = Omit<BenchmarkRun, 'report'>;

export const isRun = (progress: Progress | undefined): progress is ActiveProgress =>
  progress !== undefined && progress.run_id !== null;

/** A run's start time with seconds, so runs started within the same minute read apart. */
export function startedAt(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

const STATUS_TEXT = { running: 'Running', complete: 'Complete', cancelled: 'Cancelled', error: 'Failed' } as const;
const STATUS_BADGE = {
  running: 'badge',
  complete: 'badge badge-ok',
  cancelled: 'badge badge-warn',
  error: 'badge badge-bad',
};

/** A run's status as a badge with words (never colour alone). */
export function StatusBadge({ status }: { status: BenchmarkRun['status'] }) {
  return <span class={STATUS_BADGE[status]}>{STATUS_TEXT[status]}</span>;
}
