/**
 * A node scheduler on a manual clock for tests: a runtime with catalogue models, the performance model
 * of a hardware class, and helpers that submit requests and record what the scheduler reports.
 */
import { CATALOG, type CatalogModel } from '../../../../../emulator/sim/catalog';
import { seededRandom } from '../../../../../emulator/sim/hash';
import type { JobResult, JobSpec } from '../../../../../emulator/sim/performance/job';
import { kvBytesPerToken, performanceModel, type SimPerformance } from '../../../../../emulator/sim/performance/model';
import { NodeScheduler } from '../../../../../emulator/sim/performance/scheduler';
import { ManualClock } from '../../../../../emulator/sim/performance/scheduler-clock';
import { ModelRuntime } from '../../../../../emulator/sim/runtime';

export interface HarnessOptions {
  readonly performance?: Partial<SimPerformance>;
  readonly numParallel?: number;
  readonly maxLoadedModels?: number;
  readonly models?: readonly string[];
  readonly loaded?: readonly string[];
}

export interface Recorded {
  readonly name: string;
  /** Clock times at which the stream's token counts were reported. */
  readonly tokens: { readonly count: number; readonly at: number }[];
  result: JobResult | undefined;
}

export function entryOf(name: string): CatalogModel {
  const entry = CATALOG.find((model) => model.name === name);
  if (entry === undefined) throw new Error(`no catalogue model ${name}`);
  return entry;
}

export function createHarness(options: HarnessOptions = {}) {
  const names = options.models ?? ['llama3.2:3b', 'qwen3:8b', 'qwen2.5:32b'];
  const models = names.map(entryOf);
  const numParallel = options.numParallel ?? 1;
  const model = performanceModel({ hardware: 'rtx-4090', jitter: 0, ...options.performance }, models, numParallel);
  const runtime = new ModelRuntime({
    keepAliveMs: 300_000,
    maxLoadedModels: options.maxLoadedModels ?? 3,
    defaultNumCtx: 4096,
    memoryBytes: model.memoryBytes,
    kvBytesPerToken: (entry) => kvBytesPerToken(entry) * numParallel,
  });
  for (const entry of models) runtime.add(entry, 0);
  runtime.setLoaded(options.loaded ?? []);
  const clock = new ManualClock();
  const random = seededRandom(options.performance?.seed ?? 0);
  const scheduler = new NodeScheduler({ runtime, clock, model, keepAliveMs: 300_000, random });
  const submit = (name: string, spec: Partial<JobSpec> & { readonly model: string }) => {
    const record: Recorded = { name, tokens: [], result: undefined };
    const full: JobSpec = {
      entry: entryOf(spec.model),
      keepAliveMs: undefined,
      numCtx: undefined,
      prompt: `${name} asks a question`,
      answer: `${name} gets an answer`,
      separator: '\n',
      outputTokens: 20,
      streamTokens: true,
      loadOnly: false,
      ...spec,
    };
    const handle = scheduler.submit(full, {
      tokens: (count) => record.tokens.push({ count, at: clock.now() }),
      done: (result) => {
        record.result = result;
      },
    });
    return { record, handle };
  };
  return { runtime, clock, scheduler, model, submit };
}

/** The finished result of a recorded request (fails the test when it has not finished). */
export function resultOf(record: Recorded): JobResult {
  if (record.result === undefined) throw new Error(`${record.name} has not finished`);
  return record.result;
}
