import { describe, expect, it } from '@jest/globals';
import { nodeFromHeartbeat } from '../../../../lib/core/fleet/from-heartbeat';
import { nodeStatus } from '../../../../lib/core/fleet/node-status';
import { makeHeartbeat, makeNodeRecord, T0 } from '../../../helpers/factories';

const thresholds = { degradedAfterMs: 15_000, offlineAfterMs: 30_000 };

describe('nodeStatus', () => {
  it.each([
    [0, 'online'],
    [14_900, 'online'],
    [15_000, 'online'],
    [15_100, 'degraded'],
    [29_900, 'degraded'],
    [30_000, 'degraded'],
    [30_100, 'offline'],
    [3_600_000, 'offline'],
  ])('is %s ms after the last good report: %s', (silentMs, expected) => {
    const record = makeNodeRecord({ lastSeenAt: T0 });

    expect(nodeStatus(record, T0 + silentMs, thresholds)).toBe(expected);
  });

  it('is offline at once when draining', () => {
    expect(nodeStatus(makeNodeRecord({ lastSeenAt: T0, draining: true }), T0, thresholds)).toBe('offline');
  });

  it('uses the thresholds it is given', () => {
    const record = makeNodeRecord({ lastSeenAt: T0 });

    expect(nodeStatus(record, T0 + 2_000, { degradedAfterMs: 1_000, offlineAfterMs: 5_000 })).toBe('degraded');
  });

  it('comes back online after a new heartbeat', () => {
    const first = nodeFromHeartbeat(makeHeartbeat(), { now: T0 });
    expect(nodeStatus(first, T0 + 45_000, thresholds)).toBe('offline');

    const second = nodeFromHeartbeat(makeHeartbeat(), { previous: first, now: T0 + 45_000 });

    expect(nodeStatus(second, T0 + 45_000, thresholds)).toBe('online');
  });
});
