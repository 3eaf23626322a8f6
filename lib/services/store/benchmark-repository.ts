/**
 * Benchmark runs in the table (issue 22 item 6; ARCHITECTURE.md §3.6: what instances share lives in the
 * table), so any instance answers progress, cancel, the list and one run: the fleet-wide lock
 * (`LOCK#BENCHMARK`, a conditional put whose TTL frees it when its runner died), each run's document
 * (overwritten by its runner about once a second, kept 90 days, listed newest first by key — a Query,
 * never a Scan) and the cancel an operator wrote for the runner to see.
 */
import type { BenchmarkRun } from '../../core/benchmarks/benchmark-run';
import { benchmarkCancelKey, benchmarkRunKey, lockKey } from './keys';
import type { Table } from './table';

/** How long a run's document is kept. */
export const BENCHMARK_RETENTION_MS = 90 * 24 * 3600 * 1000;

const LOCK = lockKey('BENCHMARK');

export interface BenchmarkRepository {
  /** Takes the fleet-wide lock for `runId` until `untilMs` (epoch ms); false while another run holds it. */
  acquire(runId: string, now: number, untilMs: number): Promise<boolean>;
  /** The run holding the lock, if any. */
  holder(): Promise<string | undefined>;
  /** Gives the lock back if `runId` holds it (or drops a dead holder's). */
  release(runId: string): Promise<void>;
  save(run: BenchmarkRun): Promise<void>;
  get(runId: string): Promise<BenchmarkRun | undefined>;
  /** Newest first, at most `limit`. */
  list(limit: number): Promise<BenchmarkRun[]>;
  requestCancel(runId: string, now: number): Promise<void>;
  cancelRequested(runId: string): Promise<boolean>;
}

/** The lock's document names its run, and only that run's release deletes it. */
const lockDoc = (runId: string) => JSON.stringify({ runId });

function runOf(doc: string | undefined): BenchmarkRun | undefined {
  return doc === undefined ? undefined : (JSON.parse(doc) as BenchmarkRun);
}

export function createBenchmarkRepository(
  table: Pick<Table, 'putIfAbsent' | 'deleteItem' | 'getDoc' | 'putDoc' | 'queryDocs'>,
): BenchmarkRepository {
  const expiry = (fromMs: number) => Math.ceil((fromMs + BENCHMARK_RETENTION_MS) / 1000);
  return {
    acquire: (runId, now, untilMs) =>
      table.putIfAbsent(
        { ...LOCK, doc: lockDoc(runId), expiresAt: Math.ceil(untilMs / 1000) },
        { orExpiredBefore: Math.floor(now / 1000) },
      ),
    async holder() {
      const item = await table.getDoc(LOCK.pk, LOCK.sk);
      if (item?.doc === undefined) return undefined;
      const runId: unknown = Reflect.get(JSON.parse(item.doc) as object, 'runId');
      return typeof runId === 'string' ? runId : undefined;
    },
    async release(runId) {
      await table.deleteItem(LOCK.pk, LOCK.sk, { ifDoc: lockDoc(runId) });
    },
    save: (run) =>
      table.putDoc({
        ...benchmarkRunKey(run.run_id),
        doc: JSON.stringify(run),
        expiresAt: expiry(Date.parse(run.started_at)),
      }),
    async get(runId) {
      const key = benchmarkRunKey(runId);
      return runOf((await table.getDoc(key.pk, key.sk))?.doc);
    },
    async list(limit) {
      const items = await table.queryDocs(benchmarkRunKey('').pk, { scanForward: false, limit, skPrefix: 'bench-' });
      return items.flatMap((item) => runOf(item.doc) ?? []);
    },
    async requestCancel(runId, now) {
      await table.putDoc({ ...benchmarkCancelKey(runId), doc: '{}', expiresAt: Math.ceil((now + 86_400_000) / 1000) });
    },
    async cancelRequested(runId) {
      const key = benchmarkCancelKey(runId);
      return (await table.getDoc(key.pk, key.sk)) !== undefined;
    },
  };
}
