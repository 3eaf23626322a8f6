/**
 * Raises the rollups' maxima (`max_prompt_tokens`, `max_total_tokens`, `last_at`) of recorded traces, as
 * a recorder that keeps maxima does (issue 22 item 1). The interim recorder on main adds counters only;
 * once it raises maxima itself this writes the same values again, so the tests that use it hold either way.
 */
import { traceIncrements } from '../../lib/core/analytics/rollup';
import type { Trace } from '../../lib/services/analytics/trace';
import { dayRollupKey, hourRollupKey, type ItemKey, totalRollupKey } from '../../lib/services/store/keys';
import type { Table } from '../../lib/services/store/table';

function rollupKeys(trace: Trace): ItemKey[] {
  const model = trace.servedModel ?? trace.requestedModel;
  const keys = [
    hourRollupKey(trace.startedAt, { kind: 'fleet' }),
    hourRollupKey(trace.startedAt, { kind: 'model', model }),
  ];
  if (trace.nodeId !== undefined) {
    keys.push(dayRollupKey(trace.startedAt, { kind: 'node-model', nodeId: trace.nodeId, model }));
    keys.push(hourRollupKey(trace.startedAt, { kind: 'node', nodeId: trace.nodeId }));
    keys.push(totalRollupKey(trace.nodeId, model));
  }
  for (const tag of trace.tags) keys.push(dayRollupKey(trace.startedAt, { kind: 'tag', tag }));
  return keys;
}

export async function raiseMaxima(table: Pick<Table, 'addCounters'>, traces: readonly Trace[]): Promise<void> {
  const byKey = new Map<string, { key: ItemKey; maxima: Record<string, number> }>();
  for (const trace of traces) {
    const { maxima } = traceIncrements(trace);
    for (const key of rollupKeys(trace)) {
      const id = `${key.pk}\u0000${key.sk}`;
      const entry = byKey.get(id) ?? { key, maxima: {} };
      for (const [name, value] of Object.entries(maxima))
        entry.maxima[name] = Math.max(entry.maxima[name] ?? value, value);
      byKey.set(id, entry);
    }
  }
  for (const { key, maxima } of byKey.values()) await table.addCounters(key.pk, key.sk, {}, maxima);
}
