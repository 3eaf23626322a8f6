/**
 * The runs so far, newest first: when, mode, duration, status, requests, throughput and latency. A row's
 * button selects the run, whose report the view then shows. A running run's row shows its live figures.
 */
import { Empty } from '../../components/states';
import { count, decimal, duration, NONE } from '../../format';
import {
  type ActiveProgress,
  type BenchmarkRun,
  MODE_LABELS,
  MODEL_TYPE_LABELS,
  StatusBadge,
  startedAt,
} from './run-types';

export interface PastRunsProps {
  readonly runs: readonly BenchmarkRun[];
  /** The progress of the run going now, fresher than the list's copy of it. */
  readonly live: ActiveProgress | undefined;
  readonly selected: string;
  readonly onSelect: (runId: string) => void;
}

export function PastRuns({ runs, live, selected, onSelect }: PastRunsProps) {
  if (runs.length === 0) return <Empty>No benchmark has run yet: start one above and it is listed here.</Empty>;
  return (
    <div class="table-scroll">
      <table class="bench-runs">
        <caption class="visually-hidden">Benchmark runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Mode and types</th>
            <th scope="col" class="number">
              Duration
            </th>
            <th scope="col">Status</th>
            <th scope="col" class="number">
              Requests
            </th>
            <th scope="col" class="number">
              Failed
            </th>
            <th scope="col" class="number">
              Throughput
            </th>
            <th scope="col" class="number">
              Latency p50
            </th>
            <th scope="col" class="number">
              Latency p95
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((listed) => {
            const run = live !== undefined && live.run_id === listed.run_id ? { ...listed, ...live } : listed;
            const report = run.report;
            const isSelected = run.run_id === selected;
            return (
              <tr key={run.run_id} class={isSelected ? 'selected' : undefined}>
                <th scope="row">
                  <button
                    type="button"
                    class="bench-select"
                    aria-pressed={isSelected}
                    aria-describedby={`run-${run.run_id}`}
                    onClick={() => onSelect(run.run_id)}
                  >
                    {startedAt(run.started_at)}
                  </button>
                  <div id={`run-${run.run_id}`} class="bench-run-id">
                    {run.run_id}
                  </div>
                </th>
                <td>
                  {MODE_LABELS[run.mode] ?? run.mode}
                  <div class="bench-sub">
                    {run.model_types.map((type) => MODEL_TYPE_LABELS[type] ?? type).join(', ')}
                  </div>
                </td>
                <td class="number">
                  {count(run.duration)} s
                  {run.status !== 'running' && Math.abs(run.elapsed - run.duration) >= 1 && (
                    <div class="bench-sub">ran {decimal(run.elapsed)} s</div>
                  )}
                </td>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                <td class="number">{count(run.requests_completed)}</td>
                <td class="number">{count(run.requests_failed)}</td>
                <td class="number">
                  {report === null ? NONE : `${decimal(report.requests_per_sec)} req/s`}
                  <div class="bench-sub">{decimal(run.tok_per_sec)} tok/s</div>
                </td>
                <td class="number">{duration(report?.latency_ms?.p50)}</td>
                <td class="number">{duration(report?.latency_ms?.p95)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
