/**
 * One node:model queue (issue: routing item 2): at most `limit` slots held at once, everyone else
 * waiting until a slot frees — served by priority, in turn across applications, with aging (issue 43:
 * lib/core/queue/wait-line) — their wait bounded in time, and a waiter whose client went away removed
 * at once. A slot is held until `release()` — the end of the node's stream — so in
 * flight is what the node is really running (the reference's queue released at once and limited
 * nothing: anchor §2.6). When other instances route to the same node, this instance runs only its
 * share of the slots (`setShare`, from ./shared-slots): a smaller share never cuts a running request, it
 * only holds newcomers back. Counts what happened to every request for the status pages. Holds state;
 * the clock and the timer come in.
 */
import { ServiceUnavailableError } from '../../core/errors';
import type { QueueState } from '../../core/fleet/queue-entry';
import { DEFAULT_AGING_MS } from '../../core/queue/sharing-policy';
import { type WaitClaim, type WaitCounts, WaitLine, type WaitLineOptions } from '../../core/queue/wait-line';
import { smoothed } from '../../core/smoothed';
import { type AbortSource, watchAbort } from '../../core/stream/abort-source';
import { RequestAbortedError } from './request-aborted';

/** How a slot's use ended: only completed uses teach the queue how long a slot is held. */
export type SlotOutcome = 'completed' | 'failed' | 'cancelled';

export interface Slot {
  readonly nodeId: string;
  readonly model: string;
  /** Frees the slot for the next waiter; later calls do nothing. */
  release(outcome?: SlotOutcome): void;
}

/** Runs `callback` after `ms`; returns a function that cancels it. Tests pass a manual one. */
export type Schedule = (callback: () => void, ms: number) => () => void;

export interface QueueEnvironment {
  readonly clock: () => number;
  readonly schedule: Schedule;
  /** Called after every change of depth (the manager keeps its set of busy queues with it). */
  readonly changed: (queue: NodeModelQueue) => void;
  /** How waiting requests take turns (aging, weights); aging 30 s and equal weights when absent. */
  readonly line?: WaitLineOptions;
}

/** Who a request is when it says nothing: the router's own work (a benchmark, the summariser). */
export const ROUTER_CLAIM: WaitClaim = { priority: 'normal', app: 'router' };

const EQUAL_TURNS: WaitLineOptions = { agingMs: DEFAULT_AGING_MS, weightOf: () => 1 };

interface Waiter {
  readonly grant: () => void;
  readonly cleanup: () => void;
  /** Takes the waiter out of line with `error`. */
  readonly leave: (error: Error) => void;
}

/** Weight of the newest hold time in the running average behind Retry-After. */
const HOLD_SMOOTHING = 0.2;
const MAX_RETRY_AFTER_SECONDS = 60;

export class NodeModelQueue {
  limit = 1;
  /** This instance's share of `limit` when it shares the node with other instances; undefined alone. */
  share: number | undefined;
  /** What may run here at once: the limit, or the share when smaller. The hot path reads only this. */
  private allowed = 1;
  inFlight = 0;
  completed = 0;
  failed = 0;
  cancelled = 0;
  rejected = 0;
  timedOut = 0;
  private readonly waiters: WaitLine<Waiter>;
  /** Running average of how long a completed request held its slot; undefined before the first. */
  private holdMs: number | undefined;

  constructor(
    readonly nodeId: string,
    readonly model: string,
    private readonly env: QueueEnvironment,
  ) {
    this.waiters = new WaitLine(env.line ?? EQUAL_TURNS);
  }

  get pending(): number {
    return this.waiters.size;
  }

  get depth(): number {
    return this.waiters.size + this.inFlight;
  }

  /** What waits here, by priority and by application (for /fleet/queue). */
  waitCounts(): WaitCounts {
    return this.waiters.counts();
  }

  /** The limit follows what the node reports now; a raised one admits waiters at once, in order. */
  setLimit(limit: number): void {
    this.limit = Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : 1;
    this.allowed = this.share === undefined ? this.limit : Math.min(this.limit, this.share);
    this.pump();
  }

  /**
   * This instance's share of the slots (undefined: alone, the whole limit). A larger one admits waiters
   * at once, and the manager hears of the depths that changed.
   */
  setShare(share: number | undefined): void {
    if (share === this.share) return;
    this.share = share;
    this.allowed = share === undefined ? this.limit : Math.min(this.limit, share);
    this.pump();
    this.env.changed(this);
  }

  /** A slot now, when one is free and nobody is waiting before us. */
  takeIfFree(): Slot | undefined {
    if (this.waiters.size > 0 || this.inFlight >= this.allowed) return undefined;
    const slot = this.take();
    this.env.changed(this);
    return slot;
  }

  /** A guess at when a slot frees for a newcomer: average hold × (waiters + 1) / slots; 1 s before any. */
  retryAfterSeconds(): number {
    if (this.holdMs === undefined) return 1;
    const seconds = Math.ceil((this.holdMs * (this.waiters.size + 1)) / this.limit / 1000);
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
  }

  reject(): ServiceUnavailableError {
    this.rejected += 1;
    return new ServiceUnavailableError(
      `the queue for model '${this.model}' on node '${this.nodeId}' is full (${this.waiters.size} waiting)`,
      { code: 'queue_full', retryAfterSeconds: this.retryAfterSeconds() },
    );
  }

  /**
   * Waits in line for a slot, in the place `claim` gives it (priority, application); rejects on time-out
   * (503) or when `signal` aborts (499).
   */
  wait(timeoutMs: number, signal: AbortSource | undefined, claim: WaitClaim = ROUTER_CLAIM): Promise<Slot> {
    return new Promise<Slot>((resolve, reject) => {
      let cancelTimer = () => {};
      let unwatch = () => {};
      const leave = (error: Error) => {
        this.waiters.remove(waiter);
        waiter.cleanup();
        this.env.changed(this);
        reject(error);
      };
      const waiter: Waiter = {
        grant: () => resolve(this.take()),
        cleanup: () => {
          cancelTimer();
          unwatch();
        },
        leave,
      };
      this.waiters.push(waiter, claim, this.env.clock());
      this.env.changed(this);
      if (signal !== undefined) unwatch = watchAbort(signal, () => leave(new RequestAbortedError()));
      cancelTimer = this.env.schedule(() => {
        this.timedOut += 1;
        const where = `model '${this.model}' on node '${this.nodeId}'`;
        const message = `timed out after ${timeoutMs} ms waiting for a slot for ${where}`;
        leave(
          new ServiceUnavailableError(message, { code: 'queue_timeout', retryAfterSeconds: this.retryAfterSeconds() }),
        );
      }, timeoutMs);
    });
  }

  /**
   * Sends every waiter away with `error` (its node was ejected: ./outlier-ejection), so each can try
   * a peer now instead of waiting for a slot on a node that is not answering. Returns how many left.
   */
  evictWaiters(error: () => Error): number {
    const leaving = this.waiters.drain();
    for (const waiter of leaving) waiter.leave(error());
    return leaving.length;
  }

  state(): QueueState {
    const state: QueueState = {
      nodeId: this.nodeId,
      model: this.model,
      pending: this.waiters.size,
      inFlight: this.inFlight,
      concurrency: this.limit,
      completed: this.completed,
      failed: this.failed,
      cancelled: this.cancelled,
      rejected: this.rejected,
      timedOut: this.timedOut,
    };
    if (this.waiters.size === 0) return state;
    const counts = this.waiters.counts();
    return { ...state, waiting: { byPriority: counts.byPriority, byApp: Object.fromEntries(counts.byApp) } };
  }

  private take(): Slot {
    this.inFlight += 1;
    const acquiredAt = this.env.clock();
    let released = false;
    return {
      nodeId: this.nodeId,
      model: this.model,
      release: (outcome: SlotOutcome = 'completed') => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        this[outcome] += 1;
        if (outcome === 'completed') this.learnHold(this.env.clock() - acquiredAt);
        this.pump();
        this.env.changed(this);
      },
    };
  }

  private learnHold(held: number): void {
    this.holdMs = smoothed(this.holdMs, held, HOLD_SMOOTHING);
  }

  private pump(): void {
    while (this.inFlight < this.allowed) {
      const next = this.waiters.size === 0 ? undefined : this.waiters.shift(this.env.clock());
      if (next === undefined) return;
      next.cleanup();
      next.grant();
    }
  }
}
