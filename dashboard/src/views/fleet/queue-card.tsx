/**
 * One node:model queue of the Fleet view: waiting, in flight against the limit (the node's parallel
 * slots), and what the queue's requests came to today (completed and failed, from the day's rollups;
 * `—` until the usage read answered). While requests wait, who waits: by priority and by application
 * (issue 43), the applications with the most waiting first.
 */
import type { FleetQueueState } from '../../../../lib/core/views/fleet-status';
import { Meter } from '../../components/meter';
import * as format from '../../format';

export interface QueueOutcomes {
  readonly completed: number;
  readonly failed: number;
}

const PRIORITY_ORDER = ['high', 'normal', 'low'] as const;
/** Applications named on a card; the rest are counted. */
const APPS_SHOWN = 3;

function waitingByPriority(queue: FleetQueueState): string | undefined {
  const counts = queue.waiting_by_priority;
  if (counts === undefined) return undefined;
  const parts = PRIORITY_ORDER.filter((priority) => counts[priority] > 0).map(
    (priority) => `${format.count(counts[priority])} ${priority}`,
  );
  return parts.length === 0 ? undefined : parts.join(' · ');
}

function waitingByApp(queue: FleetQueueState): string | undefined {
  const counts = queue.waiting_by_app;
  if (counts === undefined) return undefined;
  const apps = Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  if (apps.length === 0) return undefined;
  const shown = apps.slice(0, APPS_SHOWN).map(([app, count]) => `${app} ${format.count(count)}`);
  const more = apps.length - APPS_SHOWN;
  return more > 0 ? `${shown.join(', ')}, ${more} more` : shown.join(', ');
}

export function QueueCard({ queue, outcomes }: { queue: FleetQueueState; outcomes: QueueOutcomes | undefined }) {
  const title = `${queue.node_id} · ${queue.model}`;
  const heading = `queue-${queue.node_id}-${queue.model}`.replace(/[^A-Za-z0-9_-]/g, '-');
  const used = queue.concurrency > 0 ? (queue.in_flight / queue.concurrency) * 100 : null;
  const level = queue.pending > 0 ? 'warn' : 'ok';
  const figures: [string, string][] = [
    ['Pending', format.count(queue.pending)],
    ['In flight', format.count(queue.in_flight)],
    ['Limit', format.count(queue.concurrency)],
    ['Completed today', outcomes === undefined ? format.NONE : format.count(outcomes.completed)],
    ['Failed today', outcomes === undefined ? format.NONE : format.count(outcomes.failed)],
  ];
  const byPriority = waitingByPriority(queue);
  const byApp = waitingByApp(queue);
  if (byPriority !== undefined) figures.push(['Waiting by priority', byPriority]);
  if (byApp !== undefined) figures.push(['Waiting by application', byApp]);
  return (
    <article class="card queue-card" aria-labelledby={heading}>
      <h3 id={heading}>{title}</h3>
      <Meter
        label="Slots in use"
        percent={used}
        detail={`${format.count(queue.in_flight)} / ${format.count(queue.concurrency)}`}
        level={level}
      />
      <dl class="queue-figures">
        {figures.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </article>
  );
}
