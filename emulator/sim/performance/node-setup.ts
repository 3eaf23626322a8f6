/**
 * How a simulated node puts its parts together with or without a performance model: the model runtime
 * (memory-bound, with KV cache for every parallel slot, keep-alive compressed with time), the seeded
 * scheduler on the real clock, and waiting until neither has a request in flight.
 */
import { fnv1a32, seededRandom } from '../hash';
import { ModelRuntime } from '../runtime';
import { kvBytesPerToken, type SimPerformanceModel } from './model';
import { NodeScheduler } from './scheduler';
import { realClock } from './scheduler-clock';

export interface NodeRuntimeOptions {
  /** The node's default keep_alive, ms (negative = forever). */
  readonly keepAliveMs: number;
  readonly maxLoadedModels: number;
}

/** Ollama 0.12's default context for a model loaded without `num_ctx`. */
const DEFAULT_NUM_CTX = 4096;

export function createNodeRuntime(options: NodeRuntimeOptions, model: SimPerformanceModel | undefined): ModelRuntime {
  const { keepAliveMs, maxLoadedModels } = options;
  if (model === undefined) return new ModelRuntime({ keepAliveMs, maxLoadedModels, defaultNumCtx: DEFAULT_NUM_CTX });
  return new ModelRuntime({
    keepAliveMs: keepAliveMs < 0 ? keepAliveMs : keepAliveMs / model.timeScale,
    maxLoadedModels,
    defaultNumCtx: DEFAULT_NUM_CTX,
    memoryBytes: model.memoryBytes,
    kvBytesPerToken: (entry) => kvBytesPerToken(entry) * model.numParallel,
  });
}

/** The scheduler of node `id`; `keepAliveMs` is the node's default in the modelled world. */
export function createNodeScheduler(
  runtime: ModelRuntime,
  model: SimPerformanceModel,
  id: string,
  keepAliveMs: number,
): NodeScheduler {
  // Seeded with the node id too, so that the nodes of one fleet do not share their jitter.
  const random = seededRandom(fnv1a32(`${model.seed}:${id}`));
  return new NodeScheduler({ runtime, clock: realClock(), model, keepAliveMs, random });
}

/** Resolves once no request is in flight on the runtime (embeddings, images) nor on the scheduler. */
export async function whenNodeIdle(runtime: ModelRuntime, scheduler: NodeScheduler | undefined): Promise<void> {
  await scheduler?.whenIdle();
  await runtime.whenIdle();
  if (scheduler !== undefined && (scheduler.unplaced() > 0 || runtime.requestsActive() > 0)) {
    return whenNodeIdle(runtime, scheduler);
  }
}
