/** The Traces view's list: one row per request, newest first, each with a button that opens its details. */
import type { TraceView } from '../../../../lib/core/analytics/trace-view';
import { Empty } from '../../components/states';
import * as format from '../../format';
import type { TracesAnswer } from '../traces';

const STATUS_LEVEL: Readonly<Record<string, 'ok' | 'warn' | 'bad'>> = {
  completed: 'ok',
  retried: 'warn',
  client_disconnected: 'warn',
  incomplete: 'warn',
  failed: 'bad',
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${STATUS_LEVEL[status] ?? 'warn'}`}>{status.replace('_', ' ')}</span>;
}

/** The id of a trace's button in the list, so closing its details can give it the focus back. */
export const traceButtonId = (requestId: string): string => `trace-${requestId.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** Prompt + completion tokens, or a dash when the node reported neither. */
export function tokens(trace: TraceView): string {
  if (trace.prompt_tokens === null && trace.completion_tokens === null) return format.NONE;
  return `${format.count(trace.prompt_tokens)} / ${format.count(trace.completion_tokens)}`;
}

function TraceRow({
  trace,
  selected,
  onSelect,
}: {
  trace: TraceView;
  selected: boolean;
  onSelect: (id: string) => void;
}) {
  const rerouted = trace.original_model !== trace.model;
  return (
    <tr class={selected ? 'trace-selected' : undefined}>
      <th scope="row">
        <button
          type="button"
          id={traceButtonId(trace.request_id)}
          class="link-button"
          aria-current={selected ? 'true' : undefined}
          title={format.dateTime(trace.timestamp)}
          onClick={() => onSelect(trace.request_id)}
        >
          <time dateTime={new Date(trace.timestamp * 1000).toISOString()}>{format.ago(trace.timestamp)}</time>
          <span class="visually-hidden">
            {' '}
            — details of {trace.model}, request {trace.request_id}
          </span>
        </button>
      </th>
      <td>
        {trace.model}
        {rerouted && <div class="trace-sub">asked for {trace.original_model}</div>}
      </td>
      <td>{trace.node_id ?? format.NONE}</td>
      <td>
        <StatusBadge status={trace.status} />
      </td>
      <td class="number">{format.duration(trace.latency_ms)}</td>
      <td class="number">{format.duration(trace.time_to_first_token_ms)}</td>
      <td class="number">{tokens(trace)}</td>
      <td class="number">{format.count(trace.retry_count)}</td>
      <td>{trace.fallback_used ? `yes (${trace.fallback_model ?? format.NONE})` : 'no'}</td>
      <td>{trace.tags.length === 0 ? format.NONE : trace.tags.join(', ')}</td>
      <td>{trace.original_format}</td>
      <td>{trace.key ?? format.NONE}</td>
    </tr>
  );
}

export function TraceTable({
  answer,
  filtered,
  selected,
  onSelect,
}: {
  answer: TracesAnswer;
  filtered: boolean;
  selected: string;
  onSelect: (id: string) => void;
}) {
  if (answer.traces.length === 0) {
    return (
      <Empty>
        {filtered
          ? 'No recent request matches these filters.'
          : 'No requests yet: every request the router serves (chat, generate, embeddings, …) is listed here.'}
      </Empty>
    );
  }
  return (
    <>
      {answer.partial && (
        <p class="notice notice-warn">Part of the trace table could not be read: the list may miss some requests.</p>
      )}
      <div class="table-scroll">
        <table class="trace-table">
          <caption>
            {answer.traces.length === 1 ? 'The latest request' : `The latest ${answer.traces.length} requests`}
          </caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Model</th>
              <th scope="col">Node</th>
              <th scope="col">Status</th>
              <th scope="col" class="number">
                Latency
              </th>
              <th scope="col" class="number">
                TTFT
              </th>
              <th scope="col" class="number">
                Tokens in / out
              </th>
              <th scope="col" class="number">
                Retries
              </th>
              <th scope="col">Fallback</th>
              <th scope="col">Tags</th>
              <th scope="col">Style</th>
              <th scope="col">Key</th>
            </tr>
          </thead>
          <tbody>
            {answer.traces.map((trace) => (
              <TraceRow
                key={trace.request_id}
                trace={trace}
                selected={trace.request_id === selected}
                onSelect={onSelect}
              />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
