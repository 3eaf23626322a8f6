/**
 * The Fleet view (issue 23 item 1): the fleet live from `/dashboard/events` — its totals, one card per
 * node, one per node:model queue — as of the latest event, with a notice while the feed reconnects or the
 * router's own view of the fleet could not be refreshed; and the option to be notified when a node goes
 * offline (../notify). Queue outcomes, each node's observed prefill and decode rates and the prompt-cache
 * share (the fleet's in the totals, each node's on its card) come from today's usage rollups, read every 30 s.
 */
import './fleet.css';
import type { NodeUsage, UsageView } from '../../../lib/core/analytics/usage';
import { Loading } from '../components/states';
import { Stat, View } from '../components/view';
import * as format from '../format';
import { useApi, useLive } from '../hooks';
import type { FleetEvent } from '../live';
import { alertText, notifyOption, offlineAlerts, setNotifyOffline } from '../notify';
import { useStore } from '../store';
import { cacheShareText } from './fleet/cache-share';
import { NodeCard } from './fleet/node-card';
import { QueueCard, type QueueOutcomes } from './fleet/queue-card';

const time = (ms: number) => new Date(ms).toLocaleTimeString();

const REFUSED: Readonly<Record<string, string>> = {
  denied: 'This browser blocks notifications from this page',
  default: 'Notifications were not allowed (switch this off and on to be asked again)',
  unsupported: 'This browser has no notifications',
};

function NotifyControl() {
  const option = useStore(notifyOption);
  const refused = option.enabled && !option.asking ? REFUSED[option.permission] : undefined;
  return (
    <div class="notify-option">
      <label class="inline">
        <input
          type="checkbox"
          checked={option.enabled}
          onChange={(event) => void setNotifyOffline(event.currentTarget.checked)}
        />
        Notify me when a node goes offline
      </label>
      {refused !== undefined && <p class="notify-note">{refused}; offline nodes are still announced on this page.</p>}
    </div>
  );
}

function RecentAlerts() {
  const alerts = useStore(offlineAlerts);
  if (alerts.length === 0) return null;
  return (
    <div class="notice notice-error">
      <p>Went offline while this page was open:</p>
      <ul class="offline-alerts">
        {[...alerts].reverse().map((alert) => (
          <li key={`${alert.nodeId}-${alert.at}`}>
            {alertText(alert)} at {time(alert.at)}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Totals({ event, usage }: { event: FleetEvent; usage: UsageView | undefined }) {
  const { fleet, activity } = event;
  const cache = cacheShareText(usage?.fleet.prompt_cache);
  const sum = (field: 'requests' | 'completed' | 'failed') =>
    activity === null ? null : activity.reduce((total, hour) => total + hour[field], 0);
  return (
    <section class="stats" aria-label="Fleet totals">
      <Stat
        label="Nodes online"
        value={format.count(fleet.nodes_online)}
        hint={`of ${format.count(fleet.nodes_total)}`}
      />
      <Stat label="Nodes degraded" value={format.count(fleet.nodes_degraded)} />
      <Stat label="Nodes offline" value={format.count(fleet.nodes_offline)} />
      <Stat label="Models loaded" value={format.count(fleet.models_loaded)} />
      <Stat label="Requests active" value={format.count(fleet.requests_active)} />
      <Stat
        label="Health score"
        value={event.health_score === undefined ? format.NONE : `${format.count(event.health_score)} / 100`}
      />
      <Stat
        label="Requests, last 2 h"
        value={format.count(sum('requests'))}
        hint={
          activity === null
            ? 'not read yet'
            : `${format.count(sum('completed'))} completed · ${format.count(sum('failed'))} failed`
        }
      />
      <Stat
        label="Prompt cache share, today"
        value={usage === undefined ? format.NONE : cache.value}
        hint={usage === undefined ? 'not read yet' : cache.hint}
      />
    </section>
  );
}

/** A queue with no usage row today: the rollups say nobody sent it a request (read, not guessed). */
const NO_REQUESTS: QueueOutcomes = { completed: 0, failed: 0 };

/** Today's completed and failed requests per `node:model`. */
function outcomesByQueue(usage: UsageView | undefined): Map<string, QueueOutcomes> | undefined {
  if (usage === undefined) return undefined;
  const byQueue = new Map<string, QueueOutcomes>();
  for (const row of usage.data) {
    const key = `${row.node_id}:${row.model_name}`;
    const before = byQueue.get(key) ?? { completed: 0, failed: 0 };
    byQueue.set(key, { completed: before.completed + row.completed_count, failed: before.failed + row.failed_count });
  }
  return byQueue;
}

function Fleet({ event, receivedAt }: { event: FleetEvent; receivedAt: number | undefined }) {
  const usage = useApi<UsageView>('api/usage', { days: 1 }, 30_000);
  const outcomes = outcomesByQueue(usage.data);
  const rates = new Map<string, NodeUsage>((usage.data?.nodes ?? []).map((node) => [node.node_id, node]));
  const queues = Object.entries(event.queues);
  return (
    <>
      <p class="fleet-asof">
        As of <time dateTime={new Date(event.timestamp * 1000).toISOString()}>{time(event.timestamp * 1000)}</time>
        {receivedAt !== undefined && <span class="fleet-received"> (received {time(receivedAt)})</span>}
      </p>
      <Totals event={event} usage={usage.data} />
      <section aria-labelledby="fleet-nodes">
        <h2 id="fleet-nodes">Nodes</h2>
        {event.nodes.length === 0 ? (
          <p class="state">
            No node yet: list Ollama hosts in FLEET_NODES, or start a node agent that sends heartbeats to this router.
          </p>
        ) : (
          <div class="grid">
            {event.nodes.map((node) => (
              <NodeCard key={node.node_id} node={node} rates={rates.get(node.node_id)} />
            ))}
          </div>
        )}
      </section>
      <section aria-labelledby="fleet-queues">
        <h2 id="fleet-queues">Queues</h2>
        {queues.length === 0 ? (
          <p class="state">
            No queue yet: one appears for each model a node holds in memory and each node:model the router sends work
            to.
          </p>
        ) : (
          <div class="grid queue-grid">
            {queues.map(([key, queue]) => (
              <QueueCard
                key={key}
                queue={queue}
                outcomes={outcomes === undefined ? undefined : (outcomes.get(key) ?? NO_REQUESTS)}
              />
            ))}
          </div>
        )}
      </section>
    </>
  );
}

export function FleetView() {
  const { event, state, receivedAt } = useLive();
  return (
    <View title="Fleet" summary="Every node, its models and its queues, live." controls={<NotifyControl />}>
      {state === 'reconnecting' && (
        <div class="notice notice-warn" role="status">
          <p>
            The live feed was lost; reconnecting…
            {receivedAt !== undefined && ` What follows is as it was at ${time(receivedAt)}.`}
          </p>
        </div>
      )}
      {event?.snapshot_refresh_failed === true && (
        <div class="notice notice-warn" role="status">
          <p>
            The router could not refresh its view of the fleet from its table: what follows is as it was{' '}
            {format.duration(event.snapshot_age_ms)} ago.
          </p>
        </div>
      )}
      <RecentAlerts />
      {event === undefined ? <Loading what="the fleet" /> : <Fleet event={event} receivedAt={receivedAt} />}
    </View>
  );
}
