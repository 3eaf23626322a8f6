/**
 * The Trends view (issue 23): the fleet per UTC hour of a window (`GET api/trends`): requests and
 * failures, latency and time to first token (p50/p95), tokens. Every hour of the window is a point, as
 * the API lists it: an hour without traffic counts 0 requests and has no latency (a gap in the line, not
 * a zero). The window is kept in the URL (`?range=30d`).
 */
import { useMemo } from 'preact/hooks';
import type { TrendHour, TrendsView as TrendsAnswer } from '../../../lib/core/analytics/trends';
import { type Series, TimeChart } from '../components/chart';
import { RangePicker, useRange } from '../components/range-picker';
import { Empty, WithData } from '../components/states';
import { Panel, Stat, View } from '../components/view';
import * as format from '../format';
import { useApi } from '../hooks';

const REFRESH_MS = 60_000;

const sum = (hours: readonly TrendHour[], pick: (hour: TrendHour) => number) =>
  hours.reduce((total, hour) => total + pick(hour), 0);

/** The window's mean latency: each hour's mean (over all its requests) weighted by its requests; null with none. */
function weightedMean(hours: readonly TrendHour[], pick: (hour: TrendHour) => number | null): number | null {
  let weight = 0;
  let total = 0;
  for (const hour of hours) {
    const value = pick(hour);
    if (value === null || hour.request_count === 0) continue;
    weight += hour.request_count;
    total += value * hour.request_count;
  }
  return weight === 0 ? null : total / weight;
}

function TrendCharts({ answer, phrase }: { answer: TrendsAnswer; phrase: string }) {
  const hours = answer.data;
  const charts = useMemo(() => {
    const line = (label: string, pick: (hour: TrendHour) => number | null): Series => ({
      label,
      values: hours.map(pick),
    });
    return {
      times: hours.map((hour) => hour.hour_bucket),
      requests: [line('Requests', (h) => h.request_count), line('Not completed', (h) => h.error_count)],
      latency: [line('p50', (h) => h.p50_latency_ms), line('p95', (h) => h.p95_latency_ms)],
      ttft: [line('p50', (h) => h.p50_ttft_ms), line('p95', (h) => h.p95_ttft_ms)],
      tokens: [line('Prompt', (h) => h.total_prompt_tokens), line('Completion', (h) => h.total_completion_tokens)],
    };
  }, [hours]);

  const requests = sum(hours, (hour) => hour.request_count);
  const errors = sum(hours, (hour) => hour.error_count);
  const busyHours = hours.filter((hour) => hour.request_count > 0).length;
  return (
    <>
      <div class="stats">
        <Stat label="Requests" value={format.count(requests)} hint={`in ${phrase}`} />
        <Stat
          label="Not completed"
          value={format.count(errors)}
          hint={requests === 0 ? 'no requests' : `${format.percent((errors * 100) / requests)} of requests`}
        />
        <Stat
          label="Mean latency"
          value={format.duration(weightedMean(hours, (hour) => hour.avg_latency_ms))}
          hint="over every request"
        />
        <Stat label="Prompt tokens" value={format.count(sum(hours, (hour) => hour.total_prompt_tokens))} />
        <Stat label="Completion tokens" value={format.count(sum(hours, (hour) => hour.total_completion_tokens))} />
        <Stat label="Hours with traffic" value={`${format.count(busyHours)} of ${format.count(hours.length)}`} />
      </div>
      {requests === 0 && (
        <Empty>
          No requests in {phrase}. Every request routed through this router (chat, generate, embeddings, …) is counted
          here per hour, a minute or so after it ends.
        </Empty>
      )}
      <div class="grid-wide">
        <Panel title="Requests per hour">
          <TimeChart
            title="Requests and requests not completed, per hour"
            times={charts.times}
            series={charts.requests}
            format={format.count}
          />
        </Panel>
        <Panel title="Latency">
          <TimeChart
            title="Latency p50 and p95, per hour"
            times={charts.times}
            series={charts.latency}
            format={format.duration}
          />
        </Panel>
        <Panel title="Time to first token">
          <TimeChart
            title="Time to first token p50 and p95, per hour"
            times={charts.times}
            series={charts.ttft}
            format={format.duration}
          />
        </Panel>
        <Panel title="Tokens per hour">
          <TimeChart
            title="Prompt and completion tokens, per hour"
            times={charts.times}
            series={charts.tokens}
            format={format.count}
          />
        </Panel>
      </div>
      <p class="state">
        Hours are UTC hours. Percentiles are read from histograms, within ±{format.decimal(answer.percentile_error_pct)}{' '}
        % of the true value; an hour without requests has no latency (a gap in the line).
      </p>
    </>
  );
}

export function TrendsView() {
  const [range, setRange, controls] = useRange('24h');
  const read = useApi<TrendsAnswer>('api/trends', range.query('hours'), REFRESH_MS);
  return (
    <View
      title="Trends"
      summary={`The fleet hour by hour over ${range.phrase}: requests, latency, time to first token and tokens.`}
      controls={<RangePicker range={range} onChange={setRange} controls={controls} />}
    >
      <WithData read={read} what="the hourly trends">
        {(answer) => <TrendCharts answer={answer} phrase={range.phrase} />}
      </WithData>
    </View>
  );
}
