/**
 * One run's report (lib/core/benchmarks/benchmark-report): the fleet-wide figures, charts per model
 * (requests/s, tokens/s of the chat models, latency p50 and p95), the per-model and per-node tables and
 * the peak utilisation the runner saw. The report keeps no time series, so none is drawn.
 */

import { useMemo } from 'preact/hooks';
import type { BenchmarkReport, BenchmarkStats } from '../../../../lib/core/benchmarks/benchmark-report';
import { BarChart } from '../../components/chart';
import { Meter } from '../../components/meter';
import { ScrollBox } from '../../components/scroll-box';
import { Empty } from '../../components/states';
import { Stat } from '../../components/view';
import { count, decimal, duration } from '../../format';
import { type BenchmarkRun, MODE_LABELS, MODEL_TYPE_LABELS, StatusBadge, startedAt } from './run-types';

const ms = (value: number) => duration(value);
const perSecond = (value: number) => decimal(value);

export function RunReport({ run }: { run: BenchmarkRun }) {
  return (
    <div class="bench-report">
      <p class="bench-run-line">
        <StatusBadge status={run.status} /> Run <code>{run.run_id}</code>, started {startedAt(run.started_at)}:{' '}
        {MODE_LABELS[run.mode] ?? run.mode} mode, {count(run.duration)} s of{' '}
        {run.model_types.map((type) => MODEL_TYPE_LABELS[type]).join(', ')}
      </p>
      {run.error !== null && (
        <div class="notice notice-error" role="alert">
          <p>{run.error}</p>
        </div>
      )}
      {run.report === null ? (
        <Empty>
          {run.status === 'running'
            ? 'The report is written when the run ends.'
            : 'This run ended without a report (see its error above).'}
        </Empty>
      ) : (
        <ReportBody report={run.report} />
      )}
    </div>
  );
}

function ReportBody({ report }: { report: BenchmarkReport }) {
  // The charts redraw when their figures change: built once per report, not on every poll of the view.
  const charts = useMemo(() => {
    const models = Object.entries(report.per_model);
    const chat = models.filter(([, stats]) => stats.type === 'llm');
    return {
      models,
      names: models.map(([name]) => name),
      requestsPerSecond: models.map(([, stats]) => stats.requests_per_sec),
      chatNames: chat.map(([name]) => name),
      tokensPerSecond: chat.map(([, stats]) => stats.tok_per_sec),
      p50: models.map(([, stats]) => stats.latency_ms?.p50 ?? null),
      p95: models.map(([, stats]) => stats.latency_ms?.p95 ?? null),
    };
  }, [report]);
  const { models, names } = charts;
  const nodes = Object.entries(report.per_node);
  return (
    <>
      <div class="stats">
        <Stat label="Requests done" value={count(report.requests_completed)} />
        <Stat label="Failed" value={count(report.requests_failed)} />
        <Stat label="Requests per second" value={decimal(report.requests_per_sec)} />
        <Stat label="Tokens per second" value={decimal(report.tok_per_sec)} />
        <Stat label="Latency p50" value={duration(report.latency_ms?.p50)} />
        <Stat label="Latency p95" value={duration(report.latency_ms?.p95)} />
        <Stat label="Time to first token p50" value={duration(report.ttft_ms?.p50)} />
        <Stat label="Decode tokens/s p50" value={decimal(report.decode_tok_per_sec?.p50)} />
        <Stat label="Ran for" value={duration(report.elapsed_s * 1000)} />
      </div>
      {models.length === 0 ? (
        <Empty>No request was made: no model of the chosen types was ready on an online node.</Empty>
      ) : (
        <div class="grid bench-charts">
          <BarChart
            title="Requests per second, per model"
            categories={names}
            values={charts.requestsPerSecond}
            label="Requests per second"
            format={perSecond}
          />
          {charts.chatNames.length > 0 && (
            <BarChart
              title="Tokens per second, per chat model"
              categories={charts.chatNames}
              values={charts.tokensPerSecond}
              label="Tokens per second"
              format={perSecond}
              color={2}
            />
          )}
          <BarChart
            title="Latency p50, per model"
            categories={names}
            values={charts.p50}
            label="Latency p50"
            format={ms}
            color={3}
          />
          <BarChart
            title="Latency p95, per model"
            categories={names}
            values={charts.p95}
            label="Latency p95"
            format={ms}
            color={1}
          />
        </div>
      )}
      <h3>Per model</h3>
      <StatsTable
        caption="Figures per model"
        first="Model"
        rows={models.map(([name, stats]) => ({ name, stats, type: MODEL_TYPE_LABELS[stats.type] ?? stats.type }))}
      />
      <h3>Per node</h3>
      {nodes.length === 0 ? (
        <Empty>No node took a request.</Empty>
      ) : (
        <StatsTable caption="Figures per node" first="Node" rows={nodes.map(([name, stats]) => ({ name, stats }))} />
      )}
      <h3>Peak utilisation</h3>
      <p class="bench-hint">
        In-flight requests over queue slots at the highest the runner saw (100 % = every slot busy).
      </p>
      <div class="bench-meters">
        <Meter
          label="Fleet"
          percent={report.peak_utilisation.fleet === null ? null : report.peak_utilisation.fleet * 100}
        />
        {Object.entries(report.peak_utilisation.per_node).map(([node, share]) => (
          <Meter key={node} label={node} percent={share * 100} />
        ))}
      </div>
    </>
  );
}

interface StatsRow {
  readonly name: string;
  readonly type?: string;
  readonly stats: BenchmarkStats;
}

function StatsTable({ caption, first, rows }: { caption: string; first: string; rows: readonly StatsRow[] }) {
  const typed = rows.some((row) => row.type !== undefined);
  return (
    <ScrollBox label={caption}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{first}</th>
            {typed && <th scope="col">Type</th>}
            <th scope="col" class="number">
              Requests
            </th>
            <th scope="col" class="number">
              Failed
            </th>
            <th scope="col" class="number">
              Req/s
            </th>
            <th scope="col" class="number">
              Tok/s
            </th>
            <th scope="col" class="number">
              Latency p50
            </th>
            <th scope="col" class="number">
              Latency p95
            </th>
            <th scope="col" class="number">
              TTFT p50
            </th>
            <th scope="col" class="number">
              Decode tok/s p50
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ name, type, stats }) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              {typed && <td>{type}</td>}
              <td class="number">{count(stats.requests_completed)}</td>
              <td class="number">{count(stats.requests_failed)}</td>
              <td class="number">{decimal(stats.requests_per_sec)}</td>
              <td class="number">{decimal(stats.tok_per_sec)}</td>
              <td class="number">{duration(stats.latency_ms?.p50)}</td>
              <td class="number">{duration(stats.latency_ms?.p95)}</td>
              <td class="number">{duration(stats.ttft_ms?.p50)}</td>
              <td class="number">{decimal(stats.decode_tok_per_sec?.p50)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
