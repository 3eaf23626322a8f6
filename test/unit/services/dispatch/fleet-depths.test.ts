import { describe, expect, it } from '@jest/globals';
import { createFleetDepths, type PublishedDepth } from '../../../../lib/services/dispatch/fleet-depths';
import { createQueueManager } from '../../../../lib/services/dispatch/queue-manager';
import { manualTimers } from '../../../helpers/manual-timers';

const MODEL = 'llama3.2:3b';
const published = (nodeId: string, pending: number, inFlight: number): PublishedDepth => ({
  nodeId,
  model: MODEL,
  pending,
  inFlight,
});

function setup(load: () => Promise<readonly PublishedDepth[]>) {
  const timers = manualTimers();
  const queues = createQueueManager({ schedule: timers.schedule, clock: timers.clock });
  let loads = 0;
  const depths = createFleetDepths(queues, {
    loadOthers: () => {
      loads += 1;
      return load();
    },
    refreshMs: 1000,
    maxAgeMs: 10_000,
    clock: timers.clock,
  });
  const busy = () => {
    const seen: Record<string, number> = {};
    depths.forEachBusy(MODEL, (nodeId, depth) => {
      seen[nodeId] = depth;
    });
    return seen;
  };
  return { timers, queues, depths, busy, loads: () => loads };
}

describe('createFleetDepths', () => {
  it("adds the other instances' published depths to this instance's own", async () => {
    const { queues, depths, busy } = setup(async () => [published('a', 1, 2), published('b', 0, 1)]);
    await queues.acquire('a', MODEL, 4, new AbortController().signal);
    await depths.refresh();

    expect(depths.depth('a', MODEL)).toBe(4);
    expect(depths.depth('b', MODEL)).toBe(1);
    expect(depths.depth('c', MODEL)).toBe(0);
    expect(busy()).toEqual({ a: 4, b: 1 });
  });

  it('sums entries of several instances for one node and skips idle ones', async () => {
    const { depths, busy } = setup(async () => [published('a', 0, 2), published('a', 1, 0), published('b', 0, 0)]);
    await depths.refresh();

    expect(busy()).toEqual({ a: 3 });
  });

  it('re-reads in the background once the counts are older than the refresh interval, never on each read', async () => {
    let answer = [published('a', 0, 1)];
    const { timers, depths, busy, loads } = setup(async () => answer);
    await depths.refresh();
    answer = [published('a', 0, 5)];

    busy();
    busy();
    expect(loads()).toBe(1);

    timers.advance(1000);
    expect(busy()).toEqual({ a: 1 });
    await Promise.resolve();
    await Promise.resolve();
    expect(loads()).toBe(2);
    expect(busy()).toEqual({ a: 5 });
  });

  it('keeps the last good counts when a read fails, and drops them once they are too old', async () => {
    let fail = false;
    const { timers, depths, busy } = setup(async () => {
      if (fail) throw new Error('table unreachable');
      return [published('a', 0, 2)];
    });
    await depths.refresh();
    fail = true;

    timers.advance(5000);
    expect(busy()).toEqual({ a: 2 });
    await depths.refresh();
    expect(busy()).toEqual({ a: 2 });

    timers.advance(6000);
    expect(busy()).toEqual({});
  });

  it('is re-read by the refresh ticker only once a request has read it, one read at a time', async () => {
    let answer = [published('a', 0, 1)];
    const { depths, busy, loads } = setup(async () => answer);

    depths.readAhead();
    const beforeAnyRead = loads();
    await depths.refresh();
    answer = [published('a', 0, 3)];
    depths.readAhead();
    depths.readAhead();
    await Promise.resolve();
    await Promise.resolve();

    expect(beforeAnyRead).toBe(0);
    expect(loads()).toBe(2);
    expect(busy()).toEqual({ a: 3 });
  });
});
