/**
 * `GET /dashboard/api/model-management` (issue 22 item 5): every node's models on disk with their usage
 * (./model-management-view), from the registry's snapshot and the rollups — the 30 UTC days ending today
 * per node and model (30 Queries) and the all-time totals (one), whatever the traffic.
 */

import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetRegistry } from '../../services/registry/registry';
import { modelManagementView } from './model-management-view';

export interface ModelManagementDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot'>;
  readonly rollups: Pick<RollupReader, 'nodeModelDays' | 'totals'>;
  readonly now?: () => number;
}

const DAY_MS = 86_400_000;

export async function serveModelManagement(
  deps: ModelManagementDeps,
  _request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const now = (deps.now ?? Date.now)();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const windows = { days7StartMs: today - 6 * DAY_MS, days30StartMs: today - 29 * DAY_MS };
  const [snapshot, days, totals] = await Promise.all([
    deps.registry.snapshot(),
    deps.rollups.nodeModelDays({ startMs: windows.days30StartMs, endMs: now }),
    deps.rollups.totals(),
  ]);
  await sendJson(response, {
    nodes: modelManagementView(snapshot.nodes, { days, totals }, windows, now),
    windows: {
      requests_7d: { start: windows.days7StartMs / 1000, end: Math.floor(now / 1000) },
      requests_30d: { start: windows.days30StartMs / 1000, end: Math.floor(now / 1000) },
    },
    generated_at: Math.floor(now / 1000),
  });
}
