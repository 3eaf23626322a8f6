/**
 * What a `/dashboard/events` event carries and what makes one go out at once: the fingerprint moves with
 * a node's status, draining and loaded models and with a queue's depths, and not with the clock alone;
 * the health score is left out when there is none.
 */
import { describe, expect, it } from '@jest/globals';
import { emptyRollup } from '../../../../lib/core/analytics/rollup';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import type { QueueEntry } from '../../../../lib/core/fleet/queue-entry';
import { toFleetStatus } from '../../../../lib/core/views/fleet-status';
import { activityHour, fleetEvent, fleetFingerprint } from '../../../../lib/features/events/fleet-event';
import { makeLoadedModel, makeNodeRecord, snapshotOf, T0 } from '../../../helpers/factories';

const queue: QueueEntry = { nodeId: 'gpu1', model: 'llama3.2:3b', pending: 0, inFlight: 1, concurrency: 1 };

const fingerprintOf = (record: NodeRecord, queues: readonly QueueEntry[] = [queue], now = T0) =>
  fleetFingerprint(toFleetStatus(snapshotOf([record], now), queues, now));

describe('fleetFingerprint', () => {
  const base = fingerprintOf(makeNodeRecord());

  it('stays the same while only time passes', () => {
    expect(fingerprintOf(makeNodeRecord(), [queue], T0 + 5000)).toBe(base);
  });

  it.each([
    ['draining', fingerprintOf(makeNodeRecord({ draining: true }))],
    [
      'a model loaded',
      fingerprintOf(makeNodeRecord({ loaded: [makeLoadedModel(), makeLoadedModel({ name: 'qwen3:8b' })] })),
    ],
    ['a status', fingerprintOf(makeNodeRecord({ lastSeenAt: T0 - 60_000 }))],
    ['a queue depth', fingerprintOf(makeNodeRecord(), [{ ...queue, pending: 3 }])],
  ])('changes with %s', (_change, changed) => {
    expect(changed).not.toBe(base);
  });
});

describe('fleetEvent', () => {
  const status = toFleetStatus(snapshotOf([makeNodeRecord()]), [queue], T0);

  it("carries nodes, queues, totals, the snapshot's freshness, the score and the activity", () => {
    const stale = { ...status, snapshot_refresh_failed: true, snapshot_age_ms: 4200 };
    const event = fleetEvent(stale, { score: 92 }, [activityHour(T0, emptyRollup())]);

    expect(event).toEqual({
      nodes: status.nodes,
      queues: status.queues,
      fleet: status.fleet,
      snapshot_refresh_failed: true,
      snapshot_age_ms: 4200,
      health_score: 92,
      activity: [
        {
          hour_start: new Date(T0).toISOString(),
          requests: 0,
          completed: 0,
          failed: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
        },
      ],
      timestamp: T0 / 1000,
    });
  });

  it('leaves the health score out when no health service answered', () => {
    expect(fleetEvent(status, undefined, null)).not.toHaveProperty('health_score');
  });
});
