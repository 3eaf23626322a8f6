/**
 * The Models view (issue 23): per model over a window of whole UTC days (`GET api/models?days=`): a
 * table sortable by any column (the order kept in the URL with the range), bars per model for requests,
 * p95 latency and decode rate, and requests per day per model. A figure the router did not measure is
 * `—`, never 0.
 */
import { useMemo } from 'preact/hooks';
import type { ModelSummary, ModelsView as ModelsAnswer } from '../../../lib/core/analytics/models';
import { BarChart, type Series, TimeChart } from '../components/chart';
import { RangePicker, useRange } from '../components/range-picker';
import { ScrollBox } from '../components/scroll-box';
import { Empty, WithData } from '../components/states';
import { Panel, Stat, View } from '../components/view';
import * as format from '../format';
import { useApi, useQueryState } from '../hooks';
import { perDay, utcDayStarts } from '../utc-days';
import { parseSort, type SortDirection, type SortKey, sortRows, sortText } from './models/sorting';
import './models.css';

const REFRESH_MS = 60_000;
/** Lines in the daily chart: the busiest models; the table lists every one. */
const DAILY_LINES = 6;

interface Column extends SortKey<ModelSummary> {
  readonly label: string;
  readonly show: (row: ModelSummary) => string;
  readonly numeric: boolean;
}

const rate = (value: number | null) => (value === null ? format.NONE : `${format.decimal(value)} tok/s`);

const COLUMNS: readonly Column[] = [
  { id: 'model', label: 'Model', numeric: false, value: (m) => m.model_name, show: (m) => m.model_name },
  {
    id: 'requests',
    label: 'Requests',
    numeric: true,
    value: (m) => m.total_requests,
    show: (m) => format.count(m.total_requests),
  },
  {
    id: 'failure',
    label: 'Failure rate',
    numeric: true,
    value: (m) => m.error_rate_pct,
    show: (m) => format.percent(m.error_rate_pct),
  },
  {
    id: 'latency',
    label: 'Latency avg',
    numeric: true,
    value: (m) => m.avg_latency_ms,
    show: (m) => format.duration(m.avg_latency_ms),
  },
  {
    id: 'p50',
    label: 'Latency p50',
    numeric: true,
    value: (m) => m.latency_ms.p50,
    show: (m) => format.duration(m.latency_ms.p50),
  },
  {
    id: 'p95',
    label: 'Latency p95',
    numeric: true,
    value: (m) => m.latency_ms.p95,
    show: (m) => format.duration(m.latency_ms.p95),
  },
  {
    id: 'ttft',
    label: 'TTFT avg',
    numeric: true,
    value: (m) => m.avg_ttft_ms,
    show: (m) => format.duration(m.avg_ttft_ms),
  },
  {
    id: 'ttft-p95',
    label: 'TTFT p95',
    numeric: true,
    value: (m) => m.ttft_ms.p95,
    show: (m) => format.duration(m.ttft_ms.p95),
  },
  {
    id: 'rate',
    label: 'Decode rate',
    numeric: true,
    value: (m) => m.tokens_per_second,
    show: (m) => rate(m.tokens_per_second),
  },
  {
    id: 'cache',
    label: 'Prompt cache hits',
    numeric: true,
    value: (m) => m.cache_hit_rate_pct,
    show: (m) =>
      m.cache_hit_rate_pct === null
        ? format.NONE
        : `${format.percent(m.cache_hit_rate_pct)} of ${format.count(m.cache_measured_requests)}`,
  },
  {
    id: 'tokens',
    label: 'Tokens (prompt + completion)',
    numeric: true,
    value: (m) => m.total_prompt_tokens + m.total_completion_tokens,
    show: (m) => `${format.count(m.total_prompt_tokens)} + ${format.count(m.total_completion_tokens)}`,
  },
  {
    id: 'retries',
    label: 'Retries / fallbacks',
    numeric: true,
    value: (m) => m.total_retries + m.total_fallbacks,
    show: (m) => `${format.count(m.total_retries)} / ${format.count(m.total_fallbacks)}`,
  },
  { id: 'nodes', label: 'Nodes', numeric: false, value: (m) => m.nodes.join(', '), show: (m) => m.nodes.join(', ') },
  {
    id: 'last',
    label: 'Last request',
    numeric: true,
    value: (m) => m.last_seen,
    show: (m) => format.ago(m.last_seen),
  },
];

function ModelTable({ models }: { models: readonly ModelSummary[] }) {
  const [sort, setSort] = useQueryState('sort', 'requests');
  const { column, direction } = parseSort(sort);
  const key = COLUMNS.find((entry) => entry.id === column) ?? (COLUMNS[1] as Column);
  const rows = sortRows(models, key, direction);
  const toggle = (next: Column) => {
    const first: SortDirection = next.numeric ? 'descending' : 'ascending';
    const flipped: SortDirection = direction === 'ascending' ? 'descending' : 'ascending';
    setSort(sortText(next.id, next.id === key.id ? flipped : first));
  };
  return (
    <ScrollBox label="Per-model table">
      <table class="models-table">
        <caption class="visually-hidden">
          Per model over the window; the column buttons sort the table, sorted by {key.label} {direction}
        </caption>
        <thead>
          <tr>
            {COLUMNS.map((entry) => (
              <th
                scope="col"
                key={entry.id}
                class={entry.numeric ? 'number' : undefined}
                aria-sort={entry.id === key.id ? direction : undefined}
              >
                <button type="button" class="sort-button" onClick={() => toggle(entry)}>
                  {entry.label}
                  <span aria-hidden="true">{entry.id === key.id ? (direction === 'ascending' ? ' ▲' : ' ▼') : ''}</span>
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((model) => (
            <tr key={model.model_name}>
              {COLUMNS.map((entry, index) =>
                index === 0 ? (
                  <th scope="row" key={entry.id}>
                    {entry.show(model)}
                  </th>
                ) : (
                  <td key={entry.id} class={entry.numeric ? 'number' : undefined}>
                    {entry.show(model)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/** Requests per UTC day of the window of the busiest models: a day without a row had no request of that model. */
function dailySeries(answer: ModelsAnswer) {
  const times = utcDayStarts(answer.start_ts, answer.end_ts);
  const series: Series[] = answer.summary.slice(0, DAILY_LINES).map((model) => ({
    label: model.model_name,
    values: perDay(
      times,
      answer.daily.filter((day) => day.model_name === model.model_name),
      (day) => day.day_bucket,
      (day) => day.request_count,
    ),
  }));
  return { times, series };
}

function ModelCharts({ answer }: { answer: ModelsAnswer }) {
  const models = answer.summary;
  const charts = useMemo(
    () => ({
      names: models.map((model) => model.model_name),
      requests: models.map((model) => model.total_requests),
      p95: models.map((model) => model.latency_ms.p95),
      rate: models.map((model) => model.tokens_per_second),
      daily: dailySeries(answer),
    }),
    [answer],
  );
  return (
    <>
      <div class="grid">
        <Panel title="Requests per model">
          <BarChart
            title="Requests"
            categories={charts.names}
            values={charts.requests}
            label="requests"
            format={format.count}
          />
        </Panel>
        <Panel title="p95 latency per model">
          <BarChart
            title="Latency p95"
            categories={charts.names}
            values={charts.p95}
            label="p95 latency"
            format={format.duration}
            color={1}
          />
        </Panel>
        <Panel title="Decode rate per model">
          <BarChart
            title="Tokens per second after the first token"
            categories={charts.names}
            values={charts.rate}
            label="tokens per second"
            format={(value) => format.decimal(value)}
            color={2}
          />
        </Panel>
      </div>
      <Panel title="Requests per day">
        <TimeChart
          title={`Requests per UTC day${models.length > DAILY_LINES ? `, the ${DAILY_LINES} busiest models` : ''}`}
          times={charts.daily.times}
          series={charts.daily.series}
          format={format.count}
        />
      </Panel>
    </>
  );
}

function ModelsBody({ answer, phrase }: { answer: ModelsAnswer; phrase: string }) {
  const models = answer.summary;
  if (models.length === 0) {
    return (
      <Empty>
        No model served a request in {phrase}. Each model a request is routed to appears here with its requests, latency
        and decode rate, a minute or so after the request ends.
      </Empty>
    );
  }
  const requests = models.reduce((total, model) => total + model.total_requests, 0);
  return (
    <>
      <div class="stats">
        <Stat label="Models used" value={format.count(models.length)} hint={`in ${phrase}`} />
        <Stat label="Requests" value={format.count(requests)} />
        <Stat label="Busiest model" value={models[0]?.model_name ?? format.NONE} />
      </div>
      <Panel title="Per model">
        <ModelTable models={models} />
        <p class="state">
          Days are whole UTC days. Percentiles are read from histograms, within ±
          {format.decimal(answer.percentile_error_pct)} % of the true value. Decode rate is tokens per second after the
          first token, where the node reported it. Prompt cache hits are the share of prompt tokens the node served from
          its cache, over the requests whose node reported it (Ollama does not: shown as —).
        </p>
      </Panel>
      <ModelCharts answer={answer} />
    </>
  );
}

export function ModelsView() {
  const [range, setRange, controls] = useRange('7d');
  const read = useApi<ModelsAnswer>('api/models', range.query('days'), REFRESH_MS);
  return (
    <View
      title="Models"
      summary={`Every model the fleet served over ${range.phrase}: requests, failures, latency and decode rate.`}
      controls={<RangePicker range={range} onChange={setRange} controls={controls} />}
    >
      <WithData read={read} what="the per-model figures">
        {(answer) => <ModelsBody answer={answer} phrase={range.phrase} />}
      </WithData>
    </View>
  );
}
