/**
 * The health monitor (issue 22 item 3): one report per `HEALTH_CACHE_MS` and one computation in flight,
 * the last 24 h of rollups read, a failed rollup read reported instead of failing the page, and the
 * table's write failures counted over a recent span, so an outage long over stops being reported.
 */
import { describe, expect, it } from '@jest/globals';
import type { TimeWindow } from '../../../../lib/core/analytics/window';
import type { QueueState } from '../../../../lib/core/fleet/queue-entry';
import { createHealthMonitor, HEALTH_CACHE_MS, type HealthDeps } from '../../../../lib/features/health/health-monitor';
import type { RollupRow } from '../../../../lib/services/analytics/rollup-reader';
import type { WriteBehindStats } from '../../../../lib/services/store/write-behind';
import { makeNodeRecord, makeQueueState, snapshotOf, T0 } from '../../../helpers/factories';

const STATS: WriteBehindStats = {
  enqueued: 0,
  merged: 0,
  writeRequests: 0,
  itemsWritten: 0,
  retries: 0,
  failedFlushes: 0,
  rejected: 0,
};

function fakeDeps(options: { rollupsFail?: boolean } = {}) {
  const calls = { snapshot: 0, windows: [] as TimeWindow[] };
  let stats = STATS;
  let queues: QueueState[] = [];
  let releaseSnapshot: () => void = () => {};
  let holdSnapshot = false;
  const rows = async (window: TimeWindow): Promise<RollupRow[]> => {
    calls.windows.push(window);
    if (options.rollupsFail === true) throw new Error('table down');
    return [];
  };
  const deps: HealthDeps = {
    registry: {
      snapshot: async () => {
        calls.snapshot += 1;
        if (holdSnapshot) await new Promise<void>((resolve) => (releaseSnapshot = resolve));
        return snapshotOf([makeNodeRecord({ lastSeenAt: T0 })], T0);
      },
      freshness: () => ({ ageMs: 100, refreshFailed: false }),
    },
    routing: { ejection: { ejections: () => new Map() } },
    queueView: async (): Promise<QueueState[]> => queues,
    rollups: { fleetHours: rows, nodeHours: rows, modelHours: rows },
    writeBehind: { stats: () => stats, pending: () => 0 },
    config: { modelMap: new Map(), autoRoute: false, imageGeneration: false, transcription: false },
    settings: { current: async () => ({ imageGeneration: false, transcription: false }) },
  };
  return {
    deps,
    calls,
    setStats: (next: Partial<WriteBehindStats>) => (stats = { ...STATS, ...next }),
    setQueues: (next: QueueState[]) => (queues = next),
    hold: () => (holdSnapshot = true),
    release: () => releaseSnapshot(),
  };
}

describe('health monitor', () => {
  it('computes once for every call within the cache window, and again after it', async () => {
    const fake = fakeDeps();
    const monitor = createHealthMonitor(fake.deps, T0);

    const first = await monitor.report(T0);
    const second = await monitor.report(T0 + HEALTH_CACHE_MS - 1);
    const third = await monitor.report(T0 + HEALTH_CACHE_MS);

    expect(fake.calls.snapshot).toBe(2);
    expect(second).toBe(first);
    expect(third.checked_at).toBe(new Date(T0 + HEALTH_CACHE_MS).toISOString());
  });

  it('shares one computation between calls that arrive while it runs', async () => {
    const fake = fakeDeps();
    const monitor = createHealthMonitor(fake.deps, T0);
    fake.hold();

    const both = Promise.all([monitor.report(T0), monitor.report(T0 + 5)]);
    await new Promise((resolve) => setImmediate(resolve));
    fake.release();
    const [first, second] = await both;

    expect(fake.calls.snapshot).toBe(1);
    expect(second).toBe(first);
  });

  it('reads the 24 h before now from each hourly rollup', async () => {
    const fake = fakeDeps();

    await createHealthMonitor(fake.deps, T0).report(T0);

    expect(fake.calls.windows).toEqual(Array.from({ length: 3 }, () => ({ startMs: T0 - 86_400_000, endMs: T0 + 1 })));
  });

  it('answers with analytics_unreadable when the rollups cannot be read', async () => {
    const report = await createHealthMonitor(fakeDeps({ rollupsFail: true }).deps, T0).report(T0);

    expect(report.recommendations.map((found) => found.check_id)).toEqual(['analytics_unreadable']);
    expect(report.vitals.health_score).toBe(80);
  });

  it('counts write failures over the last five minutes or more, not since the process started', async () => {
    const fake = fakeDeps();
    const monitor = createHealthMonitor(fake.deps, T0);
    fake.setStats({ failedFlushes: 4 });
    const during = await monitor.report(T0 + 60_000);
    const later = await monitor.report(T0 + 7 * 60_000);
    const muchLater = await monitor.report(T0 + 13 * 60_000);

    expect(during.recommendations).toEqual([
      expect.objectContaining({
        check_id: 'table_write_failures',
        data: expect.objectContaining({ failed_flushes: 4 }),
      }),
    ]);
    // The sample at +1 min (4 failures) is the base from +6 min on: nothing failed since.
    expect(later.recommendations).toEqual([]);
    expect(muchLater.recommendations).toEqual([]);
  });

  it('adds up the rejections every instance published per node and model, and forgets them once they are old', async () => {
    const fake = fakeDeps();
    const monitor = createHealthMonitor(fake.deps, T0);
    // Two instances serving gpu1's model: 2 and 3 requests turned away.
    fake.setQueues([makeQueueState({ rejected: 2 }), makeQueueState({ rejected: 3 })]);

    const during = await monitor.report(T0 + 60_000);
    const later = await monitor.report(T0 + 7 * 60_000);

    expect(during.recommendations).toEqual([
      expect.objectContaining({
        check_id: 'requests_rejected',
        node_id: 'gpu1',
        data: { model: 'llama3.2:3b', rejected: 5, span_s: 60 },
      }),
    ]);
    expect(later.recommendations).toEqual([]);
  });
});
