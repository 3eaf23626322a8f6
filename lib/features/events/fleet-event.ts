/**
 * What one `/dashboard/events` event carries (issue 22 item 7; the reference's payload, anchor §6.2,
 * `{nodes, queues, timestamp}`, node objects as `/fleet/status` has them), plus the fleet's totals, the
 * health score when a health service answers, and the recent activity: the requests of the current and
 * the previous UTC hour from the fleet's hourly rollups. And the fingerprint of what an operator watches
 * change — node status, draining, loaded models, queue depths — compared to send an update at once. Pure.
 */
import type { Rollup } from '../../core/analytics/rollup';
import type { FleetStatus } from '../../core/views/fleet-status';

/** One UTC hour's requests, fleet-wide. */
export interface ActivityHour {
  /** ISO 8601 start of the hour. */
  readonly hour_start: string;
  readonly requests: number;
  readonly completed: number;
  readonly failed: number;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

export interface FleetEvent {
  readonly nodes: FleetStatus['nodes'];
  readonly queues: FleetStatus['queues'];
  readonly fleet: FleetStatus['fleet'];
  /** 0–100 from the health service; absent when none answered (never a made-up number). */
  readonly health_score?: number;
  /** As `/fleet/status` says: the instance's last read of the fleet from the table failed, and how old its view is. */
  readonly snapshot_refresh_failed: boolean;
  readonly snapshot_age_ms: number | null;
  /** The previous and the current UTC hour, oldest first; null when the rollups could not be read. */
  readonly activity: readonly ActivityHour[] | null;
  /** Unix seconds. */
  readonly timestamp: number;
}

export function activityHour(startMs: number, rollup: Rollup): ActivityHour {
  const { counters } = rollup;
  return {
    hour_start: new Date(startMs).toISOString(),
    requests: counters.requests,
    completed: counters.completed,
    failed: counters.failed,
    prompt_tokens: counters.prompt_tokens,
    completion_tokens: counters.completion_tokens,
  };
}

export function fleetEvent(
  status: FleetStatus,
  health: { readonly score: number } | undefined,
  activity: readonly ActivityHour[] | null,
): FleetEvent {
  return {
    nodes: status.nodes,
    queues: status.queues,
    fleet: status.fleet,
    snapshot_refresh_failed: status.snapshot_refresh_failed,
    snapshot_age_ms: status.snapshot_age_ms,
    ...(health !== undefined ? { health_score: health.score } : {}),
    activity,
    timestamp: status.timestamp,
  };
}

/** What a change of shows at once: each node's status, draining, loaded models and ejection; each queue's depths. */
export function fleetFingerprint(status: FleetStatus): string {
  const nodes = status.nodes.map((node) => [
    node.node_id,
    node.status,
    node.draining,
    node.ollama.models_loaded.map((model) => model.name),
    node.ejection?.until ?? null,
  ]);
  const queues = Object.entries(status.queues).map(([key, queue]) => [key, queue.pending, queue.in_flight]);
  return JSON.stringify([nodes, queues]);
}
