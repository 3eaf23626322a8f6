import { describe, expect, it } from '@jest/globals';
import { createHarness, resultOf } from './harness';

const hotNames = (harness: ReturnType<typeof createHarness>) =>
  harness.runtime
    .listHot()
    .map((hot) => hot.entry.name)
    .sort();

describe('node scheduler: slots and waiting', () => {
  it('runs one request per slot and makes the rest wait in arrival order', () => {
    const harness = createHarness({ numParallel: 1, loaded: ['qwen3:8b'] });
    const [a, b, c] = ['a', 'b', 'c'].map((name) => harness.submit(name, { model: 'qwen3:8b' }).record);
    harness.clock.runAll();
    const [ra, rb, rc] = [a, b, c].map((record) => resultOf(record as NonNullable<typeof record>));
    expect(ra?.admittedAt).toBe(0);
    expect(rb?.admittedAt).toBe(ra?.finishedAt);
    expect(rc?.admittedAt).toBe(rb?.finishedAt);
    expect(harness.scheduler.statsSnapshot()).toMatchObject({ requests: 3, finished: 3, waited: 2, maxWaiting: 2 });
  });

  it('runs numParallel requests at once and queues the next until a slot frees', () => {
    const harness = createHarness({ numParallel: 2, loaded: ['qwen3:8b'] });
    const records = ['a', 'b', 'c'].map((name) => harness.submit(name, { model: 'qwen3:8b' }).record);
    harness.clock.runAll();
    const [ra, rb, rc] = records.map(resultOf);
    expect([ra?.admittedAt, rb?.admittedAt]).toEqual([0, 0]);
    expect(rc?.admittedAt).toBe(Math.min(ra?.finishedAt ?? 0, rb?.finishedAt ?? 0));
    expect(harness.scheduler.statsSnapshot()).toMatchObject({ waited: 1, maxWaiting: 1 });
  });

  it('makes two requests decoding together each slower but faster in total, on the stated curve', () => {
    const alone = createHarness({ numParallel: 2, loaded: ['qwen3:8b'] });
    const solo = alone.submit('solo', { model: 'qwen3:8b', outputTokens: 201 }).record;
    alone.clock.runAll();
    const together = createHarness({ numParallel: 2, loaded: ['qwen3:8b'] });
    const [x] = ['x', 'y'].map((name) => together.submit(name, { model: 'qwen3:8b', outputTokens: 201 }).record);
    together.clock.runAll();
    const oneMs = resultOf(solo).finishedAt - resultOf(solo).firstTokenAt;
    const rx = resultOf(x as NonNullable<typeof x>);
    const twoMs = rx.finishedAt - rx.firstTokenAt;
    expect(twoMs).toBeGreaterThan(oneMs);
    expect((2 * 200) / twoMs).toBeGreaterThan(200 / oneMs);
    // total(2) = single × 2 / (1 + β): each stream runs at 1 / (1 + β) of the single rate.
    expect(twoMs / oneMs).toBeCloseTo(1 + together.model.batchBeta, 6);
  });

  it('slows the running streams while a newcomer evaluates its prompt', () => {
    const harness = createHarness({ numParallel: 2, loaded: ['qwen3:8b'] });
    const first = harness.submit('first', { model: 'qwen3:8b', outputTokens: 400 }).record;
    harness.clock.advance(500);
    const before = first.tokens.length;
    harness.submit('second', { model: 'qwen3:8b', prompt: 'p'.repeat(40_000), outputTokens: 1 });
    harness.clock.advance(500);
    const gaps = first.tokens.slice(before - 5).map((t, i, all) => (i === 0 ? 0 : t.at - (all[i - 1]?.at ?? 0)));
    expect(Math.max(...gaps)).toBeGreaterThan(3 * Math.min(...gaps.slice(1)));
  });

  it('frees the slot of a request whose client left, for the next one', () => {
    const harness = createHarness({ numParallel: 1, loaded: ['qwen3:8b'] });
    const long = harness.submit('long', { model: 'qwen3:8b', outputTokens: 10_000 });
    const next = harness.submit('next', { model: 'qwen3:8b' }).record;
    harness.clock.advance(100);
    long.handle.cancel();
    harness.clock.runAll();
    expect(long.record.result).toBeUndefined();
    expect(resultOf(next).admittedAt).toBe(100);
    expect(harness.scheduler.statsSnapshot()).toMatchObject({ requests: 2, finished: 1 });
  });
});

describe('node scheduler: loads and memory', () => {
  it('loads a cold model once for all the requests waiting on it', () => {
    const harness = createHarness({ numParallel: 3 });
    const records = ['a', 'b', 'c'].map((name) => harness.submit(name, { model: 'qwen3:8b' }).record);
    harness.clock.runAll();
    const loadMs = harness.model.models.find((m) => m.model === 'qwen3:8b')?.loadMs;
    expect(records.map((r) => resultOf(r).readyAt)).toEqual([loadMs, loadMs, loadMs]);
    expect(harness.scheduler.statsSnapshot()).toMatchObject({ coldLoads: 1, coldLoadsByModel: { 'qwen3:8b': 1 } });
  });

  it('takes longer to load a larger model', () => {
    const harness = createHarness();
    const small = harness.submit('small', { model: 'llama3.2:3b' }).record;
    harness.clock.runAll();
    const large = harness.submit('large', { model: 'qwen2.5:32b' }).record;
    const arrived = harness.clock.now();
    harness.clock.runAll();
    const smallLoad = resultOf(small).readyAt - resultOf(small).arrivedAt;
    const largeLoad = resultOf(large).readyAt - arrived;
    expect(largeLoad).toBeGreaterThan(3 * smallLoad);
  });

  it('evicts the least recently used idle model when one more would exceed maxLoadedModels', () => {
    const harness = createHarness({ maxLoadedModels: 2, performance: { memoryGb: 80 } });
    for (const model of ['llama3.2:3b', 'qwen3:8b', 'llama3.2:3b']) {
      harness.submit(model, { model });
      harness.clock.runAll();
    }
    harness.submit('big', { model: 'qwen2.5:32b' });
    harness.clock.runAll();
    expect(hotNames(harness)).toEqual(['llama3.2:3b', 'qwen2.5:32b']);
    expect(harness.scheduler.statsSnapshot()).toMatchObject({ evictions: 1, coldLoads: 3 });
  });

  it('evicts an idle model when memory, not the model count, runs out', () => {
    const harness = createHarness({ performance: { memoryGb: 7 }, loaded: ['qwen3:8b'] });
    harness.submit('small', { model: 'llama3.2:3b' });
    harness.clock.runAll();
    expect(hotNames(harness)).toEqual(['llama3.2:3b']);
    expect(harness.scheduler.statsSnapshot().evictions).toBe(1);
  });

  it('never evicts a busy model: the load waits until it is idle', () => {
    const harness = createHarness({ performance: { memoryGb: 7 }, loaded: ['qwen3:8b'] });
    const busy = harness.submit('busy', { model: 'qwen3:8b', outputTokens: 500 }).record;
    const waiting = harness.submit('waiting', { model: 'llama3.2:3b' }).record;
    harness.clock.advance(100);
    expect(hotNames(harness)).toEqual(['qwen3:8b']);
    expect(harness.scheduler.unplaced()).toBe(1);
    harness.clock.runAll();
    const loadMs = harness.model.models.find((m) => m.model === 'llama3.2:3b')?.loadMs ?? 0;
    expect(resultOf(waiting).readyAt).toBeCloseTo(resultOf(busy).finishedAt + loadMs, 6);
    expect(hotNames(harness)).toEqual(['llama3.2:3b']);
  });

  it('compresses loads and rates with timeScale', () => {
    const normal = createHarness();
    const fast = createHarness({ performance: { timeScale: 10 } });
    const a = normal.submit('a', { model: 'qwen3:8b' }).record;
    const b = fast.submit('b', { model: 'qwen3:8b' }).record;
    normal.clock.runAll();
    fast.clock.runAll();
    expect(resultOf(b).finishedAt * 10).toBeCloseTo(resultOf(a).finishedAt, 6);
  });
});

describe('node scheduler: prompt cache', () => {
  const system = 'You are a careful assistant. '.repeat(40);
  const turn1 = `${system}\nWhat is a fleet router?`;

  it('evaluates only the new part of a conversation next turn', () => {
    const harness = createHarness({ loaded: ['qwen3:8b'] });
    const first = harness.submit('t1', { model: 'qwen3:8b', prompt: turn1, answer: 'It routes.' }).record;
    harness.clock.runAll();
    const turn2 = `${turn1}\nIt routes.\nAnd a node?`;
    const second = harness.submit('t2', { model: 'qwen3:8b', prompt: turn2 }).record;
    harness.clock.runAll();
    expect(resultOf(first).cachedTokens).toBe(0);
    const cached = Math.floor(`${turn1}\nIt routes.`.length / 4);
    expect(resultOf(second)).toMatchObject({ cachedTokens: cached, promptTokens: Math.ceil(turn2.length / 4) });
    expect(resultOf(second).evaluatedTokens).toBe(Math.ceil(turn2.length / 4) - cached);
  });

  it('loses a conversation when another one uses the only slot in between', () => {
    const harness = createHarness({ numParallel: 1, loaded: ['qwen3:8b'] });
    harness.submit('x1', { model: 'qwen3:8b', prompt: `X ${turn1}`, answer: 'A.' });
    harness.clock.runAll();
    harness.submit('y1', { model: 'qwen3:8b', prompt: `Y ${turn1}`, answer: 'B.' });
    harness.clock.runAll();
    const x2 = harness.submit('x2', { model: 'qwen3:8b', prompt: `X ${turn1}\nA.\nMore?` }).record;
    harness.clock.runAll();
    expect(resultOf(x2).cachedTokens).toBe(0);
  });

  it('keeps two conversations in two slots', () => {
    const harness = createHarness({ numParallel: 2, loaded: ['qwen3:8b'] });
    harness.submit('x1', { model: 'qwen3:8b', prompt: `X ${turn1}`, answer: 'A.' });
    harness.submit('y1', { model: 'qwen3:8b', prompt: `Y ${turn1}`, answer: 'B.' });
    harness.clock.runAll();
    const x2 = harness.submit('x2', { model: 'qwen3:8b', prompt: `X ${turn1}\nA.\nMore?` }).record;
    harness.clock.runAll();
    const y2 = harness.submit('y2', { model: 'qwen3:8b', prompt: `Y ${turn1}\nB.\nMore?` }).record;
    harness.clock.runAll();
    expect(resultOf(x2).cachedTokens).toBe(Math.floor(`X ${turn1}\nA.`.length / 4));
    expect(resultOf(y2).cachedTokens).toBe(Math.floor(`Y ${turn1}\nB.`.length / 4));
  });

  it('still evaluates one token when the whole prompt is cached', () => {
    const harness = createHarness({ loaded: ['qwen3:8b'] });
    harness.submit('a', { model: 'qwen3:8b', prompt: turn1 });
    harness.clock.runAll();
    const again = harness.submit('b', { model: 'qwen3:8b', prompt: turn1 }).record;
    harness.clock.runAll();
    expect(resultOf(again).evaluatedTokens).toBe(1);
  });

  it('loses the caches of a model that was evicted', () => {
    const harness = createHarness({ performance: { memoryGb: 7 }, loaded: ['qwen3:8b'] });
    harness.submit('x1', { model: 'qwen3:8b', prompt: turn1, answer: 'A.' });
    harness.clock.runAll();
    harness.submit('other', { model: 'llama3.2:3b' });
    harness.clock.runAll();
    const x2 = harness.submit('x2', { model: 'qwen3:8b', prompt: `${turn1}\nA.\nMore?` }).record;
    harness.clock.runAll();
    expect(resultOf(x2).cachedTokens).toBe(0);
    expect(harness.scheduler.statsSnapshot().evictions).toBe(2);
  });
});

describe('node scheduler: determinism and counters', () => {
  const scenario = (seed: number) => {
    const harness = createHarness({ numParallel: 2, performance: { seed, jitter: 0.05 } });
    const records = ['a', 'b', 'c', 'd'].map((name) => harness.submit(name, { model: 'qwen3:8b' }).record);
    harness.clock.runAll();
    return records.map((record) => resultOf(record).finishedAt);
  };

  it('repeats a run exactly with the same seed, and jitters differently with another', () => {
    expect(scenario(7)).toEqual(scenario(7));
    expect(scenario(8)).not.toEqual(scenario(7));
  });

  it('counts busy time, slot time and tokens, and resets them', () => {
    const harness = createHarness({ numParallel: 2, loaded: ['qwen3:8b'] });
    const records = ['a', 'b'].map((name) => harness.submit(name, { model: 'qwen3:8b', outputTokens: 50 }).record);
    harness.clock.runAll();
    const end = Math.max(...records.map((r) => resultOf(r).finishedAt));
    const stats = harness.scheduler.statsSnapshot();
    expect(stats.busyMs).toBeCloseTo(end, 6);
    expect(stats.slotMs).toBeCloseTo(2 * end, 6);
    expect(stats).toMatchObject({ outputTokens: 100, coldLoads: 0, waited: 0 });
    harness.scheduler.resetStats();
    expect(harness.scheduler.statsSnapshot()).toMatchObject({ requests: 0, busyMs: 0, slotMs: 0, outputTokens: 0 });
  });

  it('reports a stream token by token, each count once, the last with the end', () => {
    const harness = createHarness({ loaded: ['qwen3:8b'] });
    const record = harness.submit('a', { model: 'qwen3:8b', outputTokens: 30 }).record;
    harness.clock.runAll();
    expect(record.tokens.map((t) => t.count)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    expect(resultOf(record).outputTokens).toBe(30);
  });
});
