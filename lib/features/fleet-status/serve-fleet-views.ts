/**
 * `GET /fleet/status` and `GET /fleet/queue` (spec §4.6): the fleet's state read once per request and
 * shown through the pure views; the status adds each node's ejection state as of now.
 */
import { toFleetQueue } from '../../core/views/fleet-queue';
import { toFleetStatus } from '../../core/views/fleet-status';
import { ejectionStatesAsOf } from '../../services/dispatch/evict-ejected';
import type { OutlierEjection } from '../../services/dispatch/outlier-ejection';
import type { QueueManager } from '../../services/dispatch/queue-manager';
import type { Route } from '../../services/http/handler';
import { sendJson } from '../../services/http/reply';
import { type FleetStateSources, readFleetState } from './fleet-state';

/** The status also shows which nodes are out of routing for failing, from this instance's queues. */
export interface FleetStatusSources extends FleetStateSources {
  readonly routing: { readonly ejection: OutlierEjection; readonly queues: QueueManager };
}

export function serveFleetStatus(sources: FleetStatusSources): Route {
  return async (_request, response) => {
    const { snapshot, queues, now, freshness } = await readFleetState(sources, Date.now());
    const health = ejectionStatesAsOf(sources.routing.ejection, snapshot, sources.routing.queues, now);
    await sendJson(response, toFleetStatus(snapshot, queues, now, health, freshness));
  };
}

export function serveFleetQueue(sources: FleetStateSources): Route {
  return async (_request, response) => {
    const { snapshot, queues, now } = await readFleetState(sources, Date.now());
    await sendJson(response, toFleetQueue(snapshot, queues, now));
  };
}
