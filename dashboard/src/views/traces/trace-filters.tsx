/**
 * The Traces view's filters: model, node and tag as text with suggestions from the traces shown, status
 * and how many as choices. A text filter applies when it is committed (Enter or leaving the field), not
 * on every key, so typing a name reads the table once.
 */
import { useEffect, useState } from 'preact/hooks';
import type { TraceView } from '../../../../lib/core/analytics/trace-view';

export interface TraceFilterValues {
  readonly model: string;
  readonly node_id: string;
  readonly status: string;
  readonly tag: string;
  readonly limit: string;
}

const STATUSES = ['completed', 'failed', 'retried', 'client_disconnected', 'incomplete'] as const;
const LIMITS = ['20', '50', '100', '200', '500'] as const;

function distinct(values: Iterable<string | null>, current: string): string[] {
  const found = new Set<string>();
  for (const value of values) if (value !== null && value !== '') found.add(value);
  if (current !== '') found.add(current);
  return [...found].sort();
}

function TextFilter({
  id,
  label,
  value,
  options,
  onCommit,
}: {
  id: string;
  label: string;
  value: string;
  options: readonly string[];
  onCommit: (value: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  return (
    <label>
      {label}
      <input
        type="text"
        name={id}
        list={`${id}-options`}
        placeholder="any"
        autocomplete="off"
        value={draft}
        onInput={(event) => setDraft(event.currentTarget.value)}
        onChange={(event) => onCommit(event.currentTarget.value.trim())}
      />
      <datalist id={`${id}-options`}>
        {options.map((option) => (
          <option key={option} value={option} />
        ))}
      </datalist>
    </label>
  );
}

export function TraceFilters({
  values,
  traces,
  onChange,
}: {
  values: TraceFilterValues;
  traces: readonly TraceView[];
  onChange: (name: keyof TraceFilterValues, value: string) => void;
}) {
  const models = distinct(
    traces.flatMap((trace) => [trace.model, trace.original_model]),
    values.model,
  );
  const nodes = distinct(
    traces.map((trace) => trace.node_id),
    values.node_id,
  );
  const tags = distinct(
    traces.flatMap((trace) => trace.tags),
    values.tag,
  );
  return (
    <form
      class="filters"
      aria-label="Trace filters"
      onSubmit={(event) => {
        // Enter in a field: its change event has applied it already.
        event.preventDefault();
      }}
    >
      <TextFilter
        id="trace-model"
        label="Model"
        value={values.model}
        options={models}
        onCommit={(value) => onChange('model', value)}
      />
      <TextFilter
        id="trace-node"
        label="Node"
        value={values.node_id}
        options={nodes}
        onCommit={(value) => onChange('node_id', value)}
      />
      <label>
        Status
        <select value={values.status} onChange={(event) => onChange('status', event.currentTarget.value)}>
          <option value="">any</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {status.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <TextFilter
        id="trace-tag"
        label="Tag"
        value={values.tag}
        options={tags}
        onCommit={(value) => onChange('tag', value)}
      />
      <label>
        Show
        <select value={values.limit} onChange={(event) => onChange('limit', event.currentTarget.value)}>
          {distinct([...LIMITS], values.limit)
            .sort((a, b) => Number(a) - Number(b))
            .map((limit) => (
              <option key={limit} value={limit}>
                {limit} latest
              </option>
            ))}
        </select>
      </label>
    </form>
  );
}
