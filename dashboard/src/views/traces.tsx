/**
 * The Traces view (issue 23; anchor-ollama-herd §6.3): the router's most recent requests, newest first,
 * from `GET api/traces`, filtered by model, node, status and tag (kept in the URL, so a filtered list is a
 * link), refreshed on demand or every 5 s; choosing a trace shows all it recorded (./traces/trace-details),
 * and `traces?request_id=<id>` opens that trace directly.
 */
import { useEffect, useState } from 'preact/hooks';
import type { TraceView } from '../../../lib/core/analytics/trace-view';
import { ErrorNotice, Loading } from '../components/states';
import { View } from '../components/view';
import { useApi, useQueryState } from '../hooks';
import './traces.css';
import { TraceDetails } from './traces/trace-details';
import { TraceFilters, type TraceFilterValues } from './traces/trace-filters';
import { TraceTable, traceButtonId } from './traces/trace-table';

export interface TracesAnswer {
  readonly limit: number;
  readonly partial: boolean;
  readonly traces: readonly TraceView[];
}

const AUTO_REFRESH_MS = 5000;
/** How far back a deep-linked trace that is not in the filtered list is looked for (the API's maximum). */
const LOOKUP_LIMIT = 500;

function useFilters(): [TraceFilterValues, (name: keyof TraceFilterValues, value: string) => void] {
  const [model, setModel] = useQueryState('model', '');
  const [node, setNode] = useQueryState('node_id', '');
  const [status, setStatus] = useQueryState('status', '');
  const [tag, setTag] = useQueryState('tag', '');
  const [limit, setLimit] = useQueryState('limit', '50');
  const setters = { model: setModel, node_id: setNode, status: setStatus, tag: setTag, limit: setLimit };
  return [{ model, node_id: node, status, tag, limit }, (name, value) => setters[name](value)];
}

export function TracesView() {
  const [filters, setFilter] = useFilters();
  const [selected, setSelected] = useQueryState('request_id', '');
  const [auto, setAuto] = useState(false);
  const read = useApi<TracesAnswer>('api/traces', { ...filters }, auto ? AUTO_REFRESH_MS : undefined);
  const listed = read.data?.traces.find((trace) => trace.request_id === selected);
  // A deep link to a trace the filtered page does not hold: look for it among the latest traces of all.
  const lookup = useApi<TracesAnswer>(
    selected !== '' && read.data !== undefined && listed === undefined ? 'api/traces' : null,
    { limit: LOOKUP_LIMIT, benchmark: true },
  );
  const trace = listed ?? lookup.data?.traces.find((entry) => entry.request_id === selected);
  const [remembered, setRemembered] = useState<TraceView | undefined>(undefined);
  useEffect(() => {
    if (trace !== undefined) setRemembered(trace);
  }, [trace]);
  const shown = trace ?? (remembered?.request_id === selected ? remembered : undefined);

  const controls = (
    <>
      <label class="inline">
        <input type="checkbox" checked={auto} onChange={(event) => setAuto(event.currentTarget.checked)} />
        Auto-refresh every 5 s
      </label>
      <button type="button" class="secondary" onClick={read.reload} disabled={read.loading}>
        {read.loading ? 'Refreshing…' : 'Refresh'}
      </button>
    </>
  );

  return (
    <View title="Traces" summary="The router's most recent requests, newest first." controls={controls}>
      <TraceFilters values={filters} traces={read.data?.traces ?? []} onChange={setFilter} />
      {selected !== '' && (
        <TraceDetails
          requestId={selected}
          trace={shown}
          searching={shown === undefined && (read.loading || lookup.loading)}
          onClose={() => {
            setSelected('');
            document.getElementById(traceButtonId(selected))?.focus();
          }}
        />
      )}
      {read.error !== undefined && <ErrorNotice error={read.error} retry={read.reload} />}
      {read.data === undefined ? (
        read.error === undefined && <Loading what="the traces" />
      ) : (
        <TraceTable
          answer={read.data}
          filtered={Object.entries(filters).some(([name, value]) => name !== 'limit' && value !== '')}
          selected={selected}
          onSelect={setSelected}
        />
      )}
    </View>
  );
}
