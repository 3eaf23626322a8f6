/**
 * The Tags view (issue 23): per-tag analytics over a window of whole UTC days (`GET api/apps` and
 * `api/apps/daily`): the header figures, a table per tag, requests per tag, and the daily breakdown as a
 * chart and a table. A request counts once per tag it carries, so tag totals can exceed the requests.
 */
import { useMemo } from 'preact/hooks';
import type { TagDay, TagSummary, TagUsage } from '../../../lib/core/analytics/apps';
import { BarChart, type Series, TimeChart } from '../components/chart';
import { RangePicker, useRange } from '../components/range-picker';
import { ScrollBox } from '../components/scroll-box';
import { Empty, WithData } from '../components/states';
import { Panel, Stat, View } from '../components/view';
import * as format from '../format';
import { type ApiRead, useApi } from '../hooks';
import { perDay, utcDayStarts } from '../utc-days';
import './tags.css';

const REFRESH_MS = 60_000;
/** Lines in the daily chart: the busiest tags; the tables list every one. */
const DAILY_LINES = 6;

interface AppsAnswer {
  readonly days: number;
  readonly percentile_error_pct: number;
  readonly data: readonly TagUsage[];
  readonly summary: TagSummary;
}

interface AppsDailyAnswer {
  readonly days: number;
  readonly percentile_error_pct: number;
  readonly data: readonly TagDay[];
}

/** How a client tags a request: what lib/core/scoring/tags.ts merges. */
function HowToTag() {
  return (
    <div class="tags-howto">
      <p>A request is tagged by its client, in any of these ways (all are merged):</p>
      <ul>
        <li>
          the <code>X-Service-Tags</code> header, a comma-separated list: <code>X-Service-Tags: billing, nightly</code>
        </li>
        <li>
          <code>metadata.tags</code> in the request body, an array of strings:{' '}
          <code>{'"metadata": {"tags": ["billing"]}'}</code>
        </li>
        <li>
          the body's <code>user</code> field (<code>metadata.user_id</code> for Anthropic's Messages API), counted as
          the tag <code>user:&lt;value&gt;</code>.
        </li>
      </ul>
    </div>
  );
}

function TagTable({ tags }: { tags: readonly TagUsage[] }) {
  return (
    <ScrollBox label="Per-tag table">
      <table class="tags-table">
        <caption class="visually-hidden">Per tag over the window, most requests first</caption>
        <thead>
          <tr>
            <th scope="col">Tag</th>
            <th scope="col" class="number">
              Requests
            </th>
            <th scope="col" class="number">
              Failed
            </th>
            <th scope="col" class="number">
              Error rate
            </th>
            <th scope="col" class="number">
              Latency avg
            </th>
            <th scope="col" class="number">
              Latency p50
            </th>
            <th scope="col" class="number">
              Latency p95
            </th>
            <th scope="col" class="number">
              TTFT avg
            </th>
            <th scope="col" class="number">
              Prompt tokens
            </th>
            <th scope="col" class="number">
              Completion tokens
            </th>
            <th scope="col" class="number">
              Total tokens
            </th>
            <th scope="col">Last request</th>
          </tr>
        </thead>
        <tbody>
          {tags.map((tag) => (
            <tr key={tag.tag}>
              <th scope="row">{tag.tag}</th>
              <td class="number">{format.count(tag.request_count)}</td>
              <td class="number">{format.count(tag.failed_count)}</td>
              <td class="number">{format.percent(tag.error_rate_pct)}</td>
              <td class="number">{format.duration(tag.avg_latency_ms)}</td>
              <td class="number">{format.duration(tag.p50_latency_ms)}</td>
              <td class="number">{format.duration(tag.p95_latency_ms)}</td>
              <td class="number">{format.duration(tag.avg_ttft_ms)}</td>
              <td class="number">{format.count(tag.total_prompt_tokens)}</td>
              <td class="number">{format.count(tag.total_completion_tokens)}</td>
              <td class="number">{format.count(tag.total_tokens)}</td>
              <td>{format.ago(tag.last_seen)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

function DailyTable({ days }: { days: readonly TagDay[] }) {
  const newestFirst = [...days].sort(
    (a, b) => b.day_bucket - a.day_bucket || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0),
  );
  return (
    <ScrollBox label="Daily table">
      <table class="tags-table">
        <caption class="visually-hidden">Per tag and UTC day, newest day first</caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Tag</th>
            <th scope="col" class="number">
              Requests
            </th>
            <th scope="col" class="number">
              Error rate
            </th>
            <th scope="col" class="number">
              Latency p95
            </th>
            <th scope="col" class="number">
              Total tokens
            </th>
          </tr>
        </thead>
        <tbody>
          {newestFirst.map((day) => (
            <tr key={`${day.date} ${day.tag}`}>
              <td>{day.date}</td>
              <th scope="row">{day.tag}</th>
              <td class="number">{format.count(day.request_count)}</td>
              <td class="number">{format.percent(day.error_rate_pct)}</td>
              <td class="number">{format.duration(day.p95_latency_ms)}</td>
              <td class="number">{format.count(day.total_tokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/** Requests per UTC day of the window of the busiest tags: a day without a row had no request with that tag. */
function dailySeries(days: readonly TagDay[], tags: readonly TagUsage[], window: Window) {
  const times = utcDayStarts(window.end - window.days * 86_400, window.end);
  const series: Series[] = tags.slice(0, DAILY_LINES).map((tag) => ({
    label: tag.tag,
    values: perDay(
      times,
      days.filter((day) => day.tag === tag.tag),
      (day) => day.day_bucket,
      (day) => day.request_count,
    ),
  }));
  return { times, series };
}

/** The window the answers cover: `days` (as the API counted them) up to `end`, epoch seconds. */
interface Window {
  readonly days: number;
  readonly end: number;
}

function Daily({
  read,
  tags,
  endTs,
}: {
  read: ApiRead<AppsDailyAnswer>;
  tags: readonly TagUsage[];
  endTs: number | undefined;
}) {
  return (
    <Panel title="Daily breakdown">
      <WithData read={read} what="the daily breakdown">
        {(answer) => <DailyBody answer={answer} tags={tags} endTs={endTs} />}
      </WithData>
    </Panel>
  );
}

function DailyBody({
  answer,
  tags,
  endTs,
}: {
  answer: AppsDailyAnswer;
  tags: readonly TagUsage[];
  endTs: number | undefined;
}) {
  const days = answer.data;
  // The window ends now, or where a custom range ends; read when the answer came.
  const chart = useMemo(
    () => dailySeries(days, tags, { days: answer.days, end: endTs ?? Date.now() / 1000 }),
    [answer, tags, endTs],
  );
  if (days.length === 0) return <Empty>No tagged request in this window.</Empty>;
  return (
    <>
      <TimeChart
        title={`Requests per UTC day${tags.length > DAILY_LINES ? `, the ${DAILY_LINES} busiest tags` : ''}`}
        times={chart.times}
        series={chart.series}
        format={format.count}
      />
      <DailyTable days={days} />
    </>
  );
}

function TagsBody({
  answer,
  daily,
  phrase,
  endTs,
}: {
  answer: AppsAnswer;
  daily: ApiRead<AppsDailyAnswer>;
  phrase: string;
  endTs: number | undefined;
}) {
  const tags = answer.data;
  const chart = useMemo(
    () => ({ names: tags.map((tag) => tag.tag), requests: tags.map((tag) => tag.request_count) }),
    [tags],
  );
  if (tags.length === 0) {
    return (
      <Panel title="No tagged requests yet">
        <Empty>No request carried a tag in {phrase}.</Empty>
        <HowToTag />
      </Panel>
    );
  }
  const { summary } = answer;
  return (
    <>
      <div class="stats">
        <Stat label="Tags" value={format.count(summary.tag_count)} hint={`in ${phrase}`} />
        <Stat label="Busiest tag" value={summary.top_tag ?? format.NONE} />
        <Stat label="Tagged requests" value={format.count(summary.request_count)} hint="once per tag they carry" />
        <Stat label="Tokens" value={format.count(summary.total_tokens)} hint="prompt + completion, per tag" />
      </div>
      <Panel title="Per tag">
        <TagTable tags={tags} />
        <p class="state">
          Days are whole UTC days. A request with two tags counts in both. The error rate counts every request that did
          not complete; percentiles are within ±{format.decimal(answer.percentile_error_pct)} % of the true value.
        </p>
      </Panel>
      <Panel title="Requests per tag">
        <BarChart
          title="Requests per tag"
          categories={chart.names}
          values={chart.requests}
          label="requests"
          format={format.count}
        />
      </Panel>
      <Daily read={daily} tags={tags} endTs={endTs} />
      <details class="tags-howto-more">
        <summary>How a client tags a request</summary>
        <HowToTag />
      </details>
    </>
  );
}

export function TagsView() {
  const [range, setRange, controls] = useRange('7d');
  const query = range.query('days');
  const read = useApi<AppsAnswer>('api/apps', query, REFRESH_MS);
  const daily = useApi<AppsDailyAnswer>('api/apps/daily', query, REFRESH_MS);
  return (
    <View
      title="Tags"
      summary={`Requests by the tags their clients gave them, over ${range.phrase}.`}
      controls={<RangePicker range={range} onChange={setRange} controls={controls} />}
    >
      <WithData read={read} what="the per-tag figures">
        {(answer) => (
          <TagsBody
            answer={answer}
            daily={daily}
            phrase={range.phrase}
            endTs={typeof query['end_ts'] === 'number' ? query['end_ts'] : undefined}
          />
        )}
      </WithData>
    </View>
  );
}
