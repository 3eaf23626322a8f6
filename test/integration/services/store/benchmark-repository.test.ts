/**
 * Benchmark runs on the in-process table: one lock fleet-wide, released only by its run, taken over once
 * a dead runner's lock expired; runs listed newest first by key; cancels seen by whoever reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type BenchmarkRun, benchmarkRunId } from '../../../../lib/core/benchmarks/benchmark-run';
import { createBenchmarkRepository } from '../../../../lib/services/store/benchmark-repository';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;

beforeAll(async () => {
  store = await startStore('benchmark-repository');
});

afterAll(async () => {
  await store.close();
});

function runAt(startedAtMs: number, suffix: string): BenchmarkRun {
  const at = new Date(startedAtMs).toISOString();
  return {
    run_id: benchmarkRunId(startedAtMs, suffix),
    mode: 'default',
    duration: 3,
    model_types: ['llm'],
    status: 'complete',
    phase: 'complete',
    elapsed: 3,
    requests_completed: 1,
    requests_failed: 0,
    tok_per_sec: 1,
    models: ['llama3.2:3b'],
    error: null,
    started_at: at,
    updated_at: at,
    finished_at: at,
    report: null,
  };
}

describe('createBenchmarkRepository', () => {
  it('lets one run hold the lock, released only by that run', async () => {
    const runs = createBenchmarkRepository(store.table);
    const now = Date.now();

    const first = await runs.acquire('bench-a', now, now + 60_000);
    const second = await runs.acquire('bench-b', now, now + 60_000);
    await runs.release('bench-b');
    const holder = await runs.holder();
    await runs.release('bench-a');
    const third = await runs.acquire('bench-b', now, now + 60_000);
    await runs.release('bench-b');

    expect([first, second, holder, third]).toEqual([true, false, 'bench-a', true]);
  });

  it("takes over a dead runner's lock once it expired", async () => {
    const runs = createBenchmarkRepository(store.table);
    const now = Date.now();

    await runs.acquire('bench-dead', now - 120_000, now - 60_000);
    const taken = await runs.acquire('bench-next', now, now + 60_000);
    await runs.release('bench-next');

    expect(taken).toBe(true);
  });

  it('lists runs newest first, as many as asked, and reads one by id', async () => {
    const runs = createBenchmarkRepository(store.table);
    const now = Date.now();
    for (const [offset, suffix] of [
      [-3000, 'old'],
      [-1000, 'new'],
      [-2000, 'mid'],
    ] as const) {
      await runs.save(runAt(now + offset, suffix));
    }

    const listed = await runs.list(2);

    expect(listed.map((run) => run.run_id)).toEqual([
      benchmarkRunId(now - 1000, 'new'),
      benchmarkRunId(now - 2000, 'mid'),
    ]);
    expect(await runs.get(benchmarkRunId(now - 3000, 'old'))).toEqual(runAt(now - 3000, 'old'));
    expect(await runs.get(benchmarkRunId(now, 'none'))).toBeUndefined();
  });

  it('keeps a cancel apart from the run its runner overwrites', async () => {
    const runs = createBenchmarkRepository(store.table);
    const run = runAt(Date.now(), 'cancel');

    await runs.save(run);
    const before = await runs.cancelRequested(run.run_id);
    await runs.requestCancel(run.run_id, Date.now());
    await runs.save({ ...run, elapsed: 4 });

    expect([before, await runs.cancelRequested(run.run_id)]).toEqual([false, true]);
    expect((await runs.list(10)).map((listed) => listed.run_id)).not.toContain(undefined);
  });
});
