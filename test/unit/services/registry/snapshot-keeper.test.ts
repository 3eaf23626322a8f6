import { describe, expect, it } from '@jest/globals';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { createRefreshTicker } from '../../../../lib/services/platform/refresh-ticker';
import { createSnapshotKeeper, type FleetListing } from '../../../../lib/services/registry/snapshot-keeper';
import { timedSnapshot } from '../../../../lib/services/registry/timed-snapshot';
import { makeNodeRecord, T0 } from '../../../helpers/factories';
import { manualTimers } from '../../../helpers/manual-timers';

const MODEL = 'llama3.2:3b';
const config = { degradedAfterMs: 15_000, offlineAfterMs: 30_000, snapshotMaxAgeMs: 1000, snapshotWaitMs: 50 };
// Heard from long after the test's clock, so liveness never takes them out: only a drain does.
const node = (id: string, draining = false): NodeRecord =>
  makeNodeRecord({ id, source: 'agent', draining, lastSeenAt: T0 + 3_600_000 });

/** Lets the promise callbacks queued so far run (a read's answer landing). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A keeper over a table of node records that other instances write to, with the instance's ticker on
 * manual timers. A read answers `readMs` of (manual) time after it began, or when the test says (`hold`).
 */
function setup(readMs = 0) {
  const timers = manualTimers();
  const table = new Map<string, NodeRecord>([
    ['gpu1', node('gpu1')],
    ['gpu2', node('gpu2')],
  ]);
  const ticker = createRefreshTicker({ periodMs: config.snapshotMaxAgeMs / 2, ...timers });
  let reads = 0;
  let held: (() => void)[] | undefined;
  const keeper = createSnapshotKeeper({
    list: () => {
      reads += 1;
      const rows = [...table.values()];
      return new Promise<FleetListing>((resolve) => {
        const answer = () => resolve({ records: rows, ejections: [] });
        if (held !== undefined) held.push(answer);
        else if (readMs === 0) answer();
        else timers.schedule(answer, readMs);
      });
    },
    config,
    clock: timers.clock,
    log: () => undefined,
    awake: ticker.awake,
  });
  ticker.onTick(keeper.readAhead);
  /** Lets `ms` pass in a process that runs, its ticks on time and its reads landing. */
  const run = async (ms: number) => {
    for (let step = 0; step < ms; step += 10) {
      timers.advance(10);
      await settle();
    }
  };
  return {
    timers,
    table,
    ticker,
    keeper,
    run,
    reads: () => reads,
    /** From now on reads answer only when `release` is called. */
    hold() {
      held = [];
    },
    release() {
      const answers = held ?? [];
      held = undefined;
      for (const answer of answers) answer();
    },
  };
}

const routable = (snapshot: { placements: ReadonlyMap<string, readonly { node: { id: string } }[]> }) =>
  (snapshot.placements.get(MODEL) ?? []).map((placement) => placement.node.id);

describe('createSnapshotKeeper', () => {
  it('serves a snapshot past its bound at once, without waiting, while its refresher runs on time', async () => {
    // A slow table: each read takes 700 ms, longer than the ticker's period, so what routing reads from
    // memory ages past its 1 s bound although the ticks run on time.
    const fleet = setup(700);
    fleet.ticker.start();
    // Nothing read yet, nothing to keep fresh: the ticks read nothing before a request's first read.
    await fleet.run(1000);
    expect(fleet.reads()).toBe(0);
    const first = fleet.keeper.snapshot();
    await fleet.run(700);
    await first;

    // 2,010 ms in: the last read that landed began at 1,000; the tick at 2,000 began another.
    await fleet.run(1310);
    const atHand = fleet.keeper.ready();
    const timed = await timedSnapshot(fleet.keeper, fleet.timers.clock);

    expect(fleet.keeper.freshness().ageMs).toBe(1010);
    expect(atHand).toBeDefined();
    expect(timed.tableWaitMs).toBeUndefined();
    expect(routable(timed.snapshot)).toEqual(['gpu1', 'gpu2']);
    // One read at a time: the ticks that found one under way began none.
    expect(fleet.reads()).toBe(3);
  });

  it('after a freeze, makes the first request wait for one read, and says how long', async () => {
    const fleet = setup();
    fleet.ticker.start();
    await fleet.keeper.snapshot();
    await fleet.run(1000);
    const readsBefore = fleet.reads();

    // Frozen 5 s (a Lambda container between invocations); another instance drained gpu2 meanwhile.
    fleet.timers.freeze(5000);
    fleet.table.set('gpu2', node('gpu2', true));
    fleet.hold();
    const first = timedSnapshot(fleet.keeper, fleet.timers.clock);
    const second = timedSnapshot(fleet.keeper, fleet.timers.clock);
    fleet.timers.freeze(3);
    fleet.release();
    const [waited, alsoWaited] = await Promise.all([first, second]);

    expect(waited.tableWaitMs).toBe(3);
    expect(routable(waited.snapshot)).toEqual(['gpu1']);
    expect(alsoWaited.snapshot).toBe(waited.snapshot);
    expect(fleet.reads()).toBe(readsBefore + 1);
    // The read landed: the next request waits for nothing.
    expect((await timedSnapshot(fleet.keeper, fleet.timers.clock)).tableWaitMs).toBeUndefined();
  });

  it('after a freeze, waits at most snapshotWaitMs for a read that does not answer, then routes on what it has', async () => {
    const fleet = setup();
    fleet.ticker.start();
    await fleet.keeper.snapshot();
    fleet.timers.freeze(5000);
    fleet.hold();

    const began = performance.now();
    const served = await fleet.keeper.snapshot();
    const waitedMs = performance.now() - began;
    fleet.timers.freeze(config.snapshotWaitMs);
    const next = fleet.keeper.ready();

    expect(waitedMs).toBeGreaterThanOrEqual(config.snapshotWaitMs - 5);
    expect(waitedMs).toBeLessThan(config.snapshotWaitMs + 500);
    expect(routable(served)).toEqual(['gpu1', 'gpu2']);
    // One read's wait per thaw: past it, nothing waits again for the same read.
    expect(next).toBeDefined();
    expect(fleet.reads()).toBe(2);
    fleet.release();
  });

  it('after a freeze, replaces a read begun before it instead of trusting or waiting for it', async () => {
    const fleet = setup();
    fleet.ticker.start();
    await fleet.keeper.snapshot();
    fleet.hold();
    // A tick's read is under way when the container is frozen.
    await fleet.run(500);
    expect(fleet.reads()).toBe(2);
    fleet.timers.freeze(5000);
    fleet.table.set('gpu1', node('gpu1', true));

    const thawed = fleet.keeper.snapshot();
    fleet.release();
    const served = await thawed;

    expect(fleet.reads()).toBe(3);
    expect(routable(served)).toEqual(['gpu2']);
  });

  it('stops routing to a node drained on another instance within half a second and a read, with no request asking', async () => {
    const readMs = 20;
    const fleet = setup(readMs);
    fleet.ticker.start();
    const first = fleet.keeper.snapshot();
    await fleet.run(readMs);
    await first;

    // Drained at several points of the ticker's period; no request comes in between to trigger a read.
    for (const offsetMs of [0, 130, 260, 490]) {
      fleet.table.set('gpu2', node('gpu2'));
      await fleet.run(1000 + offsetMs);
      const before = routable(fleet.keeper.ready() ?? fail('no snapshot'));
      fleet.table.set('gpu2', node('gpu2', true));
      await fleet.run(config.snapshotMaxAgeMs / 2 + readMs);
      const after = routable(fleet.keeper.ready() ?? fail('no snapshot'));

      expect(before).toEqual(['gpu1', 'gpu2']);
      expect(after).toEqual(['gpu1']);
    }
  });

  it('keeps a save whose table write has not landed over a read begun before it lands, then trusts the table again', async () => {
    const fleet = setup();
    await fleet.keeper.snapshot();
    let land: () => void = () => undefined;
    const written = new Promise<void>((resolve) => {
      land = resolve;
    });

    // Saved here (a drain, a pulled or deleted model: lastSeenAt unchanged); the table does not show it yet.
    fleet.keeper.keep(node('gpu2', true), written);
    const whileWriting = routable(await fleet.keeper.refresh());
    land();
    await settle();
    // Another instance writes the node afterwards: once this save landed, the table's copy is the newer.
    fleet.table.set('gpu2', node('gpu2'));
    const afterwards = routable(await fleet.keeper.refresh());

    expect(whileWriting).toEqual(['gpu1']);
    expect(afterwards).toEqual(['gpu1', 'gpu2']);
  });
});

function fail(message: string): never {
  throw new Error(message);
}
