import { describe, expect, it } from '@jest/globals';
import type { Ejection } from '../../../../lib/core/fleet/ejection';
import { endedByRecord, standingEjections } from '../../../../lib/core/fleet/shared-ejections';
import { buildSnapshot } from '../../../../lib/core/fleet/snapshot';
import { makeNodeRecord } from '../../../helpers/factories';

const T0 = 1_000_000;
const thresholds = { degradedAfterMs: 30_000, offlineAfterMs: 90_000 };

function ejection(overrides: Partial<Ejection> = {}): Ejection {
  return {
    nodeId: 'a',
    backend: 'ollama',
    at: T0,
    until: T0 + 30_000,
    reason: 'no first byte in time: no headers in 2000 ms',
    level: 1,
    cause: 'first-byte-timeout',
    by: 'instance-a',
    ...overrides,
  };
}

describe('endedByRecord', () => {
  it('ends a refused connect, a failed poll or a run of 5xx at a good poll or heartbeat after it', () => {
    const after = { lastSeenAt: T0 + 1 };

    expect(endedByRecord(ejection({ cause: 'connect' }), after)).toBe(true);
    expect(endedByRecord(ejection({ cause: 'poll' }), after)).toBe(true);
    expect(endedByRecord(ejection({ cause: 'server-error' }), after)).toBe(true);
    expect(endedByRecord(ejection({ cause: 'transport' }), after)).toBe(true);
  });

  it('does not end one on an answer from before it, a failed poll, or a missing record', () => {
    expect(endedByRecord(ejection({ cause: 'connect' }), { lastSeenAt: T0 })).toBe(false);
    expect(endedByRecord(ejection({ cause: 'connect' }), { lastSeenAt: T0 + 5, lastErrorAt: T0 + 5 })).toBe(false);
    expect(endedByRecord(ejection({ cause: 'connect' }), undefined)).toBe(false);
  });

  it('leaves a missed first byte to its time: a hung generation still answers polls and heartbeats', () => {
    expect(endedByRecord(ejection({ cause: 'first-byte-timeout' }), { lastSeenAt: T0 + 10_000 })).toBe(false);
  });
});

describe('standingEjections', () => {
  const records = new Map([
    ['a', makeNodeRecord({ id: 'a', lastSeenAt: T0 + 5_000 })],
    ['b', makeNodeRecord({ id: 'b', lastSeenAt: T0 - 5_000 })],
  ]);

  it('keeps the published ejections that are neither over nor ended by their node', () => {
    const hung = ejection();
    const refused = ejection({ nodeId: 'b', cause: 'connect', reason: 'could not connect: ECONNREFUSED' });

    expect(standingEjections([hung, refused], records, T0 + 10_000)).toEqual([hung, refused]);
  });

  it('drops one that is over, one the node answered since, and one of a node no longer known', () => {
    const over = ejection({ until: T0 + 1_000 });
    const answered = ejection({ cause: 'connect' });
    const gone = ejection({ nodeId: 'z' });

    expect(standingEjections([over, answered, gone], records, T0 + 2_000)).toEqual([]);
  });

  it('rides on the snapshot built from the same read', () => {
    const hung = ejection();
    const list = [...records.values()];

    const snapshot = buildSnapshot(list, T0 + 10_000, thresholds, [hung, ejection({ until: T0 + 1 })]);
    const plain = buildSnapshot(list, T0 + 10_000, thresholds);

    expect(snapshot.ejections).toEqual([hung]);
    expect(plain).not.toHaveProperty('ejections');
  });
});
