/**
 * One node:model queue of the Fleet view: waiting, in flight against the limit (the node's parallel
 * slots), and what the queue's requests came to today (completed and failed, from the day's rollups;
 * `—` until the usage read answered).
 */
import type { FleetQueueState } from '../../../../lib/core/views/fleet-status';
import { Meter } from '../../components/meter';
import * as format from '../../format';

export interface QueueOutcomes {
  readonly completed: number;
  readonly failed: number;
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
