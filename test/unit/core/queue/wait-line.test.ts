import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PRIORITIES, type Priority, WaitLine } from '../../../../lib/core/queue/wait-line';

const AGING_MS = 30_000;

function line(weights: Record<string, number> = {}) {
  return new WaitLine<string>({ agingMs: AGING_MS, weightOf: (app) => weights[app] ?? 1 });
}

/** Shifts everything at `now`, in the order served. */
function serveAll(waiting: WaitLine<string>, now = 0): string[] {
  const served: string[] = [];
  for (let item = waiting.shift(now); item !== undefined; item = waiting.shift(now)) served.push(item);
  return served;
}

describe('WaitLine', () => {
  it('serves the highest priority first, whatever the arrival order', () => {
    const waiting = line();
    waiting.push('low', { priority: 'low', app: 'a' }, 0);
    waiting.push('normal', { priority: 'normal', app: 'a' }, 1);
    waiting.push('high', { priority: 'high', app: 'a' }, 2);

    expect(serveAll(waiting, 10)).toEqual(['high', 'normal', 'low']);
  });

  it('alternates between an application with 500 waiting and one with a single request', () => {
    const waiting = line();
    for (let index = 0; index < 500; index += 1)
      waiting.push(`batch-${index}`, { priority: 'normal', app: 'batch' }, 0);
    // The batch application was served a while before the chat user arrived.
    const early = [waiting.shift(0), waiting.shift(0), waiting.shift(0)];
    waiting.push('chat-1', { priority: 'normal', app: 'chat' }, 5);

    const next = [waiting.shift(5), waiting.shift(5)];

    expect(early).toEqual(['batch-0', 'batch-1', 'batch-2']);
    expect(next).toContain('chat-1');
  });

  it('serves applications in proportion to their weights while both wait', () => {
    const waiting = line({ chat: 2 });
    for (let index = 0; index < 60; index += 1) {
      waiting.push(`batch-${index}`, { priority: 'normal', app: 'batch' }, 0);
      waiting.push(`chat-${index}`, { priority: 'normal', app: 'chat' }, 0);
    }

    const first30 = Array.from({ length: 30 }, () => waiting.shift(0) ?? '');

    expect(first30.filter((item) => item.startsWith('chat')).length).toBe(20);
    expect(first30.filter((item) => item.startsWith('batch')).length).toBe(10);
  });

  it('gives an application that starts waiting no credit for the time it was idle', () => {
    const waiting = line();
    for (let index = 0; index < 100; index += 1) waiting.push(`a-${index}`, { priority: 'normal', app: 'a' }, 0);
    for (let index = 0; index < 50; index += 1) waiting.shift(0);
    for (let index = 0; index < 20; index += 1) waiting.push(`b-${index}`, { priority: 'normal', app: 'b' }, 1);

    const next10 = Array.from({ length: 10 }, () => waiting.shift(1) ?? '');

    // b joins at a's pass: they take turns, b does not take 50 in a row.
    expect(next10.filter((item) => item.startsWith('b')).length).toBe(5);
  });

  it('keeps an application that leaves and comes back at its pass: leaving is no reset', () => {
    const waiting = line();
    for (let index = 0; index < 10; index += 1) waiting.push(`a-${index}`, { priority: 'normal', app: 'a' }, 0);
    waiting.push('b-0', { priority: 'normal', app: 'b' }, 0);
    waiting.push('b-1', { priority: 'normal', app: 'b' }, 0);
    const firstFour = [waiting.shift(0), waiting.shift(0), waiting.shift(0), waiting.shift(0)];
    // b has nothing waiting now; it comes back with two more while a still waits.
    waiting.push('b-2', { priority: 'normal', app: 'b' }, 1);
    waiting.push('b-3', { priority: 'normal', app: 'b' }, 1);

    const nextFour = [waiting.shift(1), waiting.shift(1), waiting.shift(1), waiting.shift(1)];

    expect(firstFour.sort()).toEqual(['a-0', 'a-1', 'b-0', 'b-1']);
    expect(nextFour.filter((item) => item?.startsWith('b')).length).toBe(2);
  });

  it('raises a waiting request one class per agingMs, so low is not starved by a stream of normal', () => {
    const waiting = line();
    waiting.push('old-low', { priority: 'low', app: 'batch' }, 0);
    const served: string[] = [];
    // A normal request arrives every second and one is served every second, for two minutes.
    for (let second = 0; second < 120; second += 1) {
      const now = second * 1000;
      waiting.push(`normal-${second}`, { priority: 'normal', app: 'chat' }, now);
      served.push(waiting.shift(now) ?? '');
    }

    const at = served.indexOf('old-low');
    // At 30 s it competes as normal (the chat lane's newest is as urgent, and the batch lane's turn comes).
    expect(at).toBeGreaterThanOrEqual(AGING_MS / 1000);
    expect(at).toBeLessThanOrEqual((2 * AGING_MS) / 1000);
  });

  it('serves a low request that waited 2 × agingMs as high: before a newer high one of another application', () => {
    const waiting = line();
    waiting.push('old-low', { priority: 'low', app: 'batch' }, 0);
    waiting.push('new-high', { priority: 'high', app: 'chat' }, 2 * AGING_MS);

    const justBefore = line();
    justBefore.push('old-low', { priority: 'low', app: 'batch' }, 0);
    justBefore.push('new-high', { priority: 'high', app: 'chat' }, 2 * AGING_MS - 1);

    // Both compete as high, with equal turns: the older goes first. A moment earlier it was only normal.
    expect(serveAll(waiting, 2 * AGING_MS)).toEqual(['old-low', 'new-high']);
    expect(serveAll(justBefore, 2 * AGING_MS - 1)).toEqual(['new-high', 'old-low']);
  });

  it('takes out a request whose client left, and counts what waits by priority and application', () => {
    const waiting = line();
    waiting.push('a-high', { priority: 'high', app: 'a' }, 0);
    waiting.push('a-low', { priority: 'low', app: 'a' }, 0);
    waiting.push('b-normal', { priority: 'normal', app: 'b' }, 0);

    const removed = waiting.remove('a-high');
    const missing = waiting.remove('a-high');
    const counts = waiting.counts();

    expect([removed, missing]).toEqual([true, false]);
    expect(counts.byPriority).toEqual({ high: 0, normal: 1, low: 1 });
    expect([...counts.byApp]).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(serveAll(waiting)).toEqual(['b-normal', 'a-low']);
    expect(waiting.size).toBe(0);
  });

  it('serves every request exactly once, first come first served within an application and priority', () => {
    const claim = fc.record({
      priority: fc.constantFrom<Priority>(...PRIORITIES),
      app: fc.constantFrom('a', 'b', 'c'),
      at: fc.integer({ min: 0, max: 100_000 }),
      serveAfter: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(claim, { maxLength: 60 }), (claims) => {
        const waiting = new WaitLine<number>({ agingMs: AGING_MS, weightOf: (app) => (app === 'a' ? 3 : 1) });
        const served: number[] = [];
        let now = 0;
        claims.forEach((entry, index) => {
          now = Math.max(now, entry.at);
          waiting.push(index, { priority: entry.priority, app: entry.app }, now);
          if (entry.serveAfter) served.push(waiting.shift(now) ?? -1);
        });
        for (let item = waiting.shift(now); item !== undefined; item = waiting.shift(now)) served.push(item);

        expect([...served].sort((x, y) => x - y)).toEqual(claims.map((_, index) => index));
        for (const app of ['a', 'b', 'c']) {
          for (const priority of PRIORITIES) {
            const mine = served.filter((index) => claims[index]?.app === app && claims[index]?.priority === priority);
            expect(mine).toEqual([...mine].sort((x, y) => x - y));
          }
        }
      }),
    );
  });
});
