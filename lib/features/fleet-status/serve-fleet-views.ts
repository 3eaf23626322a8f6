/**
 * `GET /fleet/status` and `GET /fleet/queue` (spec §4.6): the fleet's state read once per request and
 * shown through the pure views; the status adds each node's ejection state as of now, and how this
 * instance routes (its strategy and the rates it observed, issue 41).
 */

import type { RoutingStrategy } from '../../core/scoring/routing-strategy';
import { toFleetQueue } from '../../core/views/fleet-queue';
import { toFleetStatus } from '../../core/views/fleet-status';
import { ejectionStatesAsOf } from '../../services/dispatch/evict-ejected';
import type { NodeRates } from '../../services/dispatch/node-rates';
import type { OutlierEjection } from '../../services/dispatch/outlier-ejection';
import type { QueueManager } from '../../services/dispatch/queue-manager';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetConfig } from '../../services/platform/config';
import { type FleetStateDeps, readFleetState } from './fleet-state';

/** The status also shows which nodes are out of routing for failing, from this instance's queues. */
export interface FleetStatusDeps extends FleetStateDeps {
  readonly routing: {
    readonly ejection: OutlierEjection;
    readonly queues: QueueManager;
    readonly rates: NodeRates;
    readonly strategy: RoutingStrategy;
  };
}

export async function serveFleetStatus(
  deps: FleetStatusDeps,
  _request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const { snapshot, queues, now, freshness } = await readFleetState(deps, Date.now());
  const health = ejectionStatesAsOf(deps.routing.ejection, snapshot, deps.routing.queues, now);
  const routing = { strategy: deps.routing.strategy.name, rates: deps.routing.rates.entries() };
  await sendJson(response, toFleetStatus(snapshot, queues, now, health, freshness, routing));
}

/** The queue view also says how patient the router is (the admission settings). */
export interface FleetQueueDeps extends FleetStateDeps {
  readonly config: Pick<FleetConfig, 'queueMaxPending' | 'queueTimeoutMs'>;
}

export async function serveFleetQueue(
  deps: FleetQueueDeps,
  _request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const { snapshot, queues, now } = await readFleetState(deps, Date.now());
  const admission = { max_pending: deps.config.queueMaxPending, timeout_ms: deps.config.queueTimeoutMs };
  await sendJson(response, toFleetQueue(snapshot, queues, now, admission));
}
