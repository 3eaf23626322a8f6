/**
 * One trace's details: every field the router recorded, the points each routing signal gave the node
 * it chose (`scores_breakdown`), the nodes it passed over, retries, fallback and the error. Focused when
 * it opens, so a keyboard user lands on it; Close (or Escape) goes back to the list.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { TraceView } from '../../../../lib/core/analytics/trace-view';
import * as format from '../../format';
import { StatusBadge, tokens } from './trace-table';

function Field({ name, children }: { name: string; children: ComponentChildren }) {
  return (
    <div class="trace-field">
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}

const orNone = (value: string | null) => (value === null || value === '' ? format.NONE : value);

/**
 * Each signal's points, whatever the signals are named (routing adds new ones), the largest either way
 * first — a penalty can decide as much as a bonus — with the total the node won with.
 */
function ScoreBreakdown({ trace }: { trace: TraceView }) {
  const entries = Object.entries(trace.scores_breakdown ?? {}).sort(
    ([nameA, a], [nameB, b]) => Math.abs(b) - Math.abs(a) || nameA.localeCompare(nameB),
  );
  if (entries.length === 0) {
    return <p class="state">No score breakdown: routing did not score nodes for this request.</p>;
  }
  return (
    <div class="table-scroll">
      <table class="score-table">
        <caption class="visually-hidden">Score breakdown of {trace.node_id ?? 'the chosen node'}</caption>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Signal</th>
            <th scope="col" class="number">
              Points
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([signal, points]) => (
            <tr key={signal}>
              <td>{trace.node_id ?? format.NONE}</td>
              <th scope="row">{signal}</th>
              <td class="number">{format.decimal(points)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <td>{trace.node_id ?? format.NONE}</td>
            <th scope="row">Total</th>
            <td class="number">{format.decimal(trace.score)}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

function Details({ trace }: { trace: TraceView }) {
  return (
    <>
      {trace.error_message !== null && (
        <div class="notice notice-error">
          <p>
            <strong>Error:</strong> {trace.error_message}
          </p>
        </div>
      )}
      <dl class="trace-fields">
        <Field name="Request id">
          <code>{trace.request_id}</code>
        </Field>
        <Field name="Arrived">{format.dateTime(trace.timestamp)}</Field>
        <Field name="Status">
          <StatusBadge status={trace.status} />
        </Field>
        <Field name="Model served">{trace.model}</Field>
        <Field name="Model asked for">{trace.original_model}</Field>
        <Field name="Node">{orNone(trace.node_id)}</Field>
        <Field name="Score">{format.decimal(trace.score)}</Field>
        <Field name="Latency">{format.duration(trace.latency_ms)}</Field>
        <Field name="Time to first token">{format.duration(trace.time_to_first_token_ms)}</Field>
        <Field name="Model load">{format.duration(trace.load_ms)}</Field>
        <Field name="Tokens in / out">{tokens(trace)}</Field>
        <Field name="Prompt estimate (router)">{format.count(trace.prompt_estimate_tokens)}</Field>
        <Field name="Node prompt / answer time">
          {format.duration(trace.prompt_eval_ms)} / {format.duration(trace.eval_ms)}
        </Field>
        <Field name="Cached prompt tokens">{format.count(trace.cached_tokens)}</Field>
        <Field name="Retries">{format.count(trace.retry_count)}</Field>
        <Field name="Fallback used">{trace.fallback_used ? `yes, ${trace.fallback_model ?? format.NONE}` : 'no'}</Field>
        <Field name="Finish reason">{orNone(trace.finish_reason)}</Field>
        <Field name="Context">{orNone(trace.context)}</Field>
        <Field name="Style">{trace.original_format}</Field>
        <Field name="Client">{orNone(trace.client_ip)}</Field>
        <Field name="Key">{orNone(trace.key)}</Field>
        <Field name="Application">{orNone(trace.app)}</Field>
        <Field name="Priority">{orNone(trace.priority)}</Field>
        <Field name="Tags">{trace.tags.length === 0 ? format.NONE : trace.tags.join(', ')}</Field>
        <Field name="Benchmark run">{orNone(trace.benchmark_run_id)}</Field>
      </dl>
      <h3>Score breakdown</h3>
      <ScoreBreakdown trace={trace} />
      <h3>Excluded nodes</h3>
      {trace.excluded_nodes.length === 0 ? (
        <p class="state">None: no node was passed over for failing.</p>
      ) : (
        <ul class="trace-excluded">
          {trace.excluded_nodes.map((node) => (
            <li key={node}>{node}</li>
          ))}
        </ul>
      )}
    </>
  );
}

export function TraceDetails({
  requestId,
  trace,
  searching,
  onClose,
}: {
  requestId: string;
  trace: TraceView | undefined;
  searching: boolean;
  onClose: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: 'nearest' });
  }, [requestId]);
  return (
    <section
      class="panel trace-details"
      aria-labelledby="trace-details-title"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <div class="trace-details-head">
        <h2 id="trace-details-title" tabIndex={-1} ref={heading}>
          Trace details
        </h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      {trace !== undefined ? (
        <Details trace={trace} />
      ) : searching ? (
        <p class="state" aria-busy="true">
          Looking for trace {requestId}…
        </p>
      ) : (
        <p class="state state-empty">
          Trace {requestId} is not among the latest traces: it may be older than the ones kept for this list.
        </p>
      )}
    </section>
  );
}
