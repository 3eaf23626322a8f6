/**
 * A request as the node scheduler sees it (`JobSpec` in, `JobResult` out) and the per-model lane it
 * waits and runs in: the load state of the model, its FIFO of waiting requests, the running ones and the
 * prompt-cache slots. Plain data; `NodeScheduler` moves it.
 */
import type { CatalogModel } from '../catalog';
import type { HotModel } from '../runtime';
import type { CacheSlot, PromptAccounting } from './prompt-cache';

export interface JobSpec {
  readonly entry: CatalogModel;
  /** The request's `keep_alive` in the modelled world, ms (-1 forever); undefined = the node's default. */
  readonly keepAliveMs: number | undefined;
  readonly numCtx: number | undefined;
  /** The rendered prompt: what the slot's cache is compared with. */
  readonly prompt: string;
  /** The answer as it will come back in the next turn's prompt, and what joins it to the prompt. */
  readonly answer: string;
  readonly separator: string;
  /** Tokens the answer takes (`eval_count`). */
  readonly outputTokens: number;
  /** Report every token as it comes out (a stream); otherwise only the end. */
  readonly streamTokens: boolean;
  /** Only load the model (an empty prompt): done when the model is ready, no slot taken. */
  readonly loadOnly: boolean;
}

/** Clock readings of one request (scheduler clock, ms) and its token accounting. */
export interface JobResult {
  readonly arrivedAt: number;
  /** When its model was ready for it (arrival when it was hot already). */
  readonly readyAt: number;
  /** When it got a slot. */
  readonly admittedAt: number;
  readonly firstTokenAt: number;
  readonly finishedAt: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly evaluatedTokens: number;
  readonly outputTokens: number;
}

export interface JobListener {
  /** A stream's first `count` tokens are out (called with growing counts). */
  tokens?(count: number): void;
  /** The request is done (never called after `cancel`). */
  done(result: JobResult): void;
}

export interface JobHandle {
  /** The client left: frees the slot or the place in the queue. */
  cancel(): void;
}

export type JobPhase = 'queued' | 'prefill' | 'decode' | 'finished' | 'cancelled';

export interface Job {
  readonly spec: JobSpec;
  readonly listener: JobListener;
  readonly lane: Lane;
  /** This request's multiplier on its rates (the seeded jitter). */
  readonly factor: number;
  phase: JobPhase;
  readonly arrivedAt: number;
  readyAt: number | undefined;
  admittedAt: number;
  firstTokenAt: number;
  slot: CacheSlot | undefined;
  accounting: PromptAccounting | undefined;
  /** Work done in the current phase (prompt tokens, then tokens after the first) and its goal. */
  progress: number;
  target: number;
  /** Work per ms now. */
  rate: number;
  /** Tokens reported to the listener. */
  reported: number;
  /** Ends the request's count on the hot model (`ModelRuntime.begin`); undefined while not counted. */
  end: (() => void) | undefined;
}

export type LaneState = 'cold' | 'loading' | 'ready';

export interface Lane {
  readonly entry: CatalogModel;
  state: LaneState;
  /** The runtime's record of the loaded model: when the runtime drops it, the lane is cold again. */
  hot: HotModel | undefined;
  loadEndsAt: number;
  /** Waiting for the load or a slot, in arrival order. */
  readonly queue: Job[];
  running: Job[];
  slots: CacheSlot[];
}

/** The work left before this job's next event: its next token when it streams, else its phase's end. */
export function workToNextEvent(job: Job, epsilon: number): number {
  if (job.phase === 'decode' && job.spec.streamTokens) {
    return Math.min(job.target, Math.floor(job.progress + epsilon) + 1) - job.progress;
  }
  return job.target - job.progress;
}

/** Tokens a running job has produced: the first at the end of prefill, then one per unit of decode. */
export function tokensOut(job: Job, epsilon: number): number {
  if (job.phase !== 'decode' && job.phase !== 'finished') return 0;
  if (job.phase === 'finished') return job.spec.outputTokens;
  return Math.min(job.spec.outputTokens, 1 + Math.floor(job.progress + epsilon));
}
