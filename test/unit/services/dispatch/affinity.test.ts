import { describe, expect, it } from '@jest/globals';
import { createAffinityTracker } from '../../../../lib/services/dispatch/affinity';
import type { AffinityStore, StoredPin } from '../../../../lib/services/store/affinity-repository';
import { T0 } from '../../../helpers/factories';

function clockAt(start = T0) {
  let now = start;
  return { clock: () => now, advance: (ms: number) => (now += ms) };
}

/** A store kept in a map, recording saves; `load` answers when the test lets it. */
function memoryStore(pins: Record<string, StoredPin> = {}) {
  const saves: [string, string, number][] = [];
  const loads: string[] = [];
  const store: AffinityStore = {
    load: async (key) => {
      loads.push(key);
      return pins[key];
    },
    save: (key, nodeId, expiresAt) => {
      saves.push([key, nodeId, expiresAt]);
    },
  };
  return { store, saves, loads };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createAffinityTracker', () => {
  it('remembers the node a conversation was served by', () => {
    const tracker = createAffinityTracker({ clock: clockAt().clock });
    expect(tracker.pinned('conv:1')).toBeUndefined();
    tracker.pin('conv:1', 'gpu2');
    expect(tracker.pinned('conv:1')).toBe('gpu2');
    tracker.pin('conv:1', 'gpu3');
    expect(tracker.pinned('conv:1')).toBe('gpu3');
  });

  it('forgets a pin after 15 minutes without a new turn', () => {
    const time = clockAt();
    const tracker = createAffinityTracker({ clock: time.clock });
    tracker.pin('conv:1', 'gpu2');
    time.advance(899_999);
    expect(tracker.pinned('conv:1')).toBe('gpu2');
    time.advance(1);
    expect(tracker.pinned('conv:1')).toBeUndefined();
    expect(tracker.size).toBe(0);
  });

  it('renews the TTL on every pin', () => {
    const time = clockAt();
    const tracker = createAffinityTracker({ clock: time.clock });
    tracker.pin('conv:1', 'gpu2');
    time.advance(600_000);
    tracker.pin('conv:1', 'gpu2');
    time.advance(600_000);
    expect(tracker.pinned('conv:1')).toBe('gpu2');
  });

  it('stays within its bound, dropping the oldest pin first', () => {
    const tracker = createAffinityTracker({ maxEntries: 3, clock: clockAt().clock });
    for (const key of ['a', 'b', 'c']) tracker.pin(key, 'gpu1');
    tracker.pin('a', 'gpu1'); // a is now the newest
    tracker.pin('d', 'gpu1');
    expect(tracker.size).toBe(3);
    expect(tracker.pinned('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((key) => tracker.pinned(key))).toEqual(['gpu1', 'gpu1', 'gpu1']);
  });

  it('holds 2,000 conversations by default', () => {
    const tracker = createAffinityTracker({ clock: clockAt().clock });
    for (let index = 0; index < 2500; index += 1) tracker.pin(`conv:${index}`, 'gpu1');
    expect(tracker.size).toBe(2000);
    expect(tracker.pinned('conv:499')).toBeUndefined();
    expect(tracker.pinned('conv:500')).toBe('gpu1');
  });

  it('never makes routing wait for the store: a miss answers now and learns in the background', async () => {
    const time = clockAt();
    const { store, loads } = memoryStore({ 'conv:1': { nodeId: 'gpu4', expiresAt: T0 + 60_000 } });
    const tracker = createAffinityTracker({ clock: time.clock, store });
    expect(tracker.pinned('conv:1')).toBeUndefined();
    expect(tracker.pinned('conv:1')).toBeUndefined();
    await flush();
    expect(loads).toEqual(['conv:1']);
    expect(tracker.pinned('conv:1')).toBe('gpu4');
    time.advance(60_000);
    expect(tracker.pinned('conv:1')).toBeUndefined();
  });

  it('ignores a stored pin that has expired, and a late answer once pinned here', async () => {
    const { store } = memoryStore({
      old: { nodeId: 'gpu4', expiresAt: T0 - 1 },
      raced: { nodeId: 'gpu4', expiresAt: T0 + 60_000 },
    });
    const tracker = createAffinityTracker({ clock: clockAt().clock, store });
    tracker.pinned('old');
    tracker.pinned('raced');
    tracker.pin('raced', 'gpu1');
    await flush();
    expect(tracker.pinned('old')).toBeUndefined();
    expect(tracker.pinned('raced')).toBe('gpu1');
  });

  it('shares a new or moved pin through the store, an unchanged one at most every half TTL', () => {
    const time = clockAt();
    const { store, saves } = memoryStore();
    const tracker = createAffinityTracker({ clock: time.clock, store });
    tracker.pin('conv:1', 'gpu1');
    time.advance(60_000);
    tracker.pin('conv:1', 'gpu1');
    tracker.pin('conv:1', 'gpu2');
    time.advance(450_001);
    tracker.pin('conv:1', 'gpu2');
    expect(saves).toEqual([
      ['conv:1', 'gpu1', T0 + 900_000],
      ['conv:1', 'gpu2', T0 + 60_000 + 900_000],
      ['conv:1', 'gpu2', T0 + 510_001 + 900_000],
    ]);
  });

  it('logs a store that fails and carries on', async () => {
    const lines: string[] = [];
    const store: AffinityStore = { load: () => Promise.reject(new Error('table down')), save: () => {} };
    const tracker = createAffinityTracker({ clock: clockAt().clock, store, log: (line) => lines.push(line) });
    expect(tracker.pinned('conv:1')).toBeUndefined();
    await flush();
    expect(lines).toEqual(['affinity: loading pin conv:1 failed: Error: table down']);
    tracker.pin('conv:1', 'gpu1');
    expect(tracker.pinned('conv:1')).toBe('gpu1');
  });

  it('waits for the store to recall a conversation that goes on, once, and answers from memory after', async () => {
    const { store, loads } = memoryStore({ 'conv:1': { nodeId: 'gpu4', expiresAt: T0 + 60_000 } });
    const tracker = createAffinityTracker({ clock: clockAt().clock, store });

    expect(await tracker.recall('conv:1')).toBe('gpu4');
    expect(await tracker.recall('conv:1')).toBe('gpu4');
    expect(await tracker.recall('conv:2')).toBeUndefined();
    expect(loads).toEqual(['conv:1', 'conv:2']);
  });

  it('recalls no longer than its bound from a store that hangs, and learns the late answer', async () => {
    let answer: (pin: StoredPin) => void = () => {};
    const store: AffinityStore = {
      load: () => new Promise<StoredPin>((resolve) => (answer = resolve)),
      save: () => {},
    };
    const tracker = createAffinityTracker({ clock: clockAt().clock, store, loadTimeoutMs: 20 });
    const started = Date.now();

    expect(await tracker.recall('conv:1')).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
    answer({ nodeId: 'gpu4', expiresAt: T0 + 60_000 });
    await flush();
    expect(tracker.pinned('conv:1')).toBe('gpu4');
  });

  it('reads the store once for a conversation it has no pin for, until the miss is 30 s old', async () => {
    const time = clockAt();
    const { store, loads } = memoryStore();
    const tracker = createAffinityTracker({ clock: time.clock, store });
    // A conversation no node serves (a model no node has): every request asks for its pin.
    for (let request = 0; request < 5; request += 1) {
      expect(tracker.pinned('conv:1')).toBeUndefined();
      await flush();
    }
    expect(await tracker.recall('conv:1')).toBeUndefined();
    expect(loads).toEqual(['conv:1']);
    time.advance(29_999);
    tracker.pinned('conv:1');
    await flush();
    expect(loads).toEqual(['conv:1']);
    time.advance(1);
    tracker.pinned('conv:1');
    await flush();
    expect(loads).toEqual(['conv:1', 'conv:1']);
  });

  it('ends a remembered miss when it pins the conversation itself, and reads again once that pin expires', async () => {
    const time = clockAt();
    const { store, loads } = memoryStore();
    const tracker = createAffinityTracker({ clock: time.clock, store, ttlMs: 10_000 });
    tracker.pinned('conv:1');
    await flush();
    tracker.pin('conv:1', 'gpu2');
    expect(tracker.pinned('conv:1')).toBe('gpu2');
    time.advance(10_000);
    expect(tracker.pinned('conv:1')).toBeUndefined();
    await flush();
    expect(loads).toEqual(['conv:1', 'conv:1']);
  });

  it('remembers at most as many misses as pins, the oldest forgotten first', async () => {
    const { store, loads } = memoryStore();
    const tracker = createAffinityTracker({ clock: clockAt().clock, store, maxEntries: 2 });
    for (const key of ['a', 'b', 'c', 'a', 'c']) {
      tracker.pinned(key);
      await flush();
    }
    expect(loads).toEqual(['a', 'b', 'c', 'a']);
  });
});
