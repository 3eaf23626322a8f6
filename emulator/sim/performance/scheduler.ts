/**
 * The event-driven scheduler of one simulated node with a performance model (`NodeScheduler`): requests
 * wait per model in arrival order (as in Ollama's runner, beyond `OLLAMA_NUM_PARALLEL` slots), a cold
 * model is loaded once for all its waiting requests after idle models are evicted to make room, and the
 * running requests share the GPU by processor sharing — on every arrival, phase change, finish or load,
 * each one's rate is recomputed (`requestRates`) and one timer is set for the earliest next event of the
 * whole node (a load ending, a prefill ending, the next token of a stream). Tokens falling due together
 * are reported together.
 */
import type { CatalogModel } from '../catalog';
import type { ModelRuntime } from '../runtime';
import { requestRates } from './batching';
import {
  type Job,
  type JobHandle,
  type JobListener,
  type JobResult,
  type JobSpec,
  tokensOut,
  workToNextEvent,
} from './job';
import { LaneTable } from './lanes';
import { modelRates, type SimPerformanceModel } from './model';
import type { SchedulerClock } from './scheduler-clock';
import { type SimPerformanceStats, StatsRecorder } from './stats';

export interface SchedulerDeps {
  readonly runtime: ModelRuntime;
  readonly clock: SchedulerClock;
  readonly model: SimPerformanceModel;
  /** The node's default keep_alive (modelled world), ms. */
  readonly keepAliveMs: number;
  /** Uniform [0, 1) draws for the per-request jitter (seeded). */
  readonly random: () => number;
}

/** Rates in wall-clock units: per ms, timeScale applied. */
interface WallRates {
  readonly prefillPerMs: number;
  readonly decodePerMs: number;
  readonly loadMs: number;
}

/** Float slack when comparing progress with a goal. */
const EPSILON = 1e-6;

type Notice = () => void;

export class NodeScheduler {
  private readonly lanes: LaneTable;
  private readonly wallRates = new Map<string, WallRates>();
  private readonly stats: StatsRecorder;
  private lastAdvance: number;
  private cancelTimer: (() => void) | undefined;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private ticking = false;
  private again = false;
  private closed = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.lastAdvance = deps.clock.now();
    this.stats = new StatsRecorder(this.lastAdvance);
    this.lanes = new LaneTable(deps.runtime, deps.model.numParallel, deps.model.multiUserCache);
    deps.runtime.onEvict(() => {
      // The evicted model's lane notices on its next refresh; only idle models are evicted.
      this.stats.counts.evictions++;
    });
  }

  submit(spec: JobSpec, listener: JobListener): JobHandle {
    const lane = this.lanes.laneOf(spec.entry);
    const now = this.deps.clock.now();
    const jitter = this.deps.model.jitter;
    const factor = spec.loadOnly || jitter === 0 ? 1 : 1 + jitter * (2 * this.deps.random() - 1);
    const job: Job = {
      spec,
      listener,
      lane,
      factor,
      phase: 'queued',
      arrivedAt: now,
      readyAt: undefined,
      admittedAt: now,
      firstTokenAt: now,
      slot: undefined,
      accounting: undefined,
      progress: 0,
      target: 0,
      rate: 0,
      reported: 0,
      end: undefined,
    };
    if (!spec.loadOnly) this.stats.counts.requests++;
    this.inFlight++;
    lane.queue.push(job);
    if (lane.state !== 'cold') this.lanes.attach(job);
    if (lane.state === 'ready') job.readyAt = now;
    // Processed at the arrival's own instant: a request admitted at once has waited exactly 0.
    this.tick(now);
    return { cancel: () => this.cancel(job) };
  }

  /** Requests waiting on a model that is not loading yet: no hot model counts them. */
  unplaced(): number {
    return this.lanes.unplaced();
  }

  /** Resolves once no request is waiting or running on the scheduler. */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  statsSnapshot(): SimPerformanceStats {
    return this.stats.snapshot(this.deps.clock.now());
  }

  resetStats(): void {
    this.stats.reset(this.deps.clock.now());
  }

  close(): void {
    this.closed = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /** Processes everything due at `at` (default: now); re-entrant calls run once more afterwards. */
  private tick(at?: number): void {
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = true;
    const notices: Notice[] = [];
    let first = true;
    do {
      this.again = false;
      const now = first && at !== undefined ? at : this.deps.clock.now();
      first = false;
      this.advance(now);
      this.settle(now, notices);
      this.pump(now, notices);
      this.retime();
      this.report(notices);
      this.stats.accrue(now, this.lanes.running());
      this.stats.waiting(this.lanes.waitingForSlot());
    } while (this.again);
    this.ticking = false;
    this.schedule();
    // Listeners run last, on a consistent state; one that cancels a request starts a fresh tick.
    for (const notice of notices) notice();
  }

  private advance(now: number): void {
    const elapsed = now - this.lastAdvance;
    this.lastAdvance = now;
    if (!(elapsed > 0)) return;
    for (const lane of this.lanes.all()) {
      for (const job of lane.running) job.progress = Math.min(job.target, job.progress + job.rate * elapsed);
    }
  }

  /** Loads that ended, prefills that ended (first token), answers that ended. */
  private settle(now: number, notices: Notice[]): void {
    for (const lane of this.lanes.all()) {
      if (lane.state === 'loading' && now >= lane.loadEndsAt - EPSILON) this.lanes.finishLoad(lane, now);
      for (const job of [...lane.running]) {
        if (job.phase === 'prefill' && job.progress >= job.target - EPSILON) this.startDecode(job, now);
        if (job.phase === 'decode' && job.progress >= job.target - EPSILON) this.finish(job, now, notices);
      }
    }
  }

  /** Admissions to free slots, then loads of cold models in the order their first request arrived. */
  private pump(now: number, notices: Notice[]): void {
    for (const lane of this.lanes.all()) {
      this.lanes.refresh(lane);
      if (lane.state !== 'ready') continue;
      for (const job of lane.queue.filter((j) => j.spec.loadOnly)) this.finishLoadOnly(job, now, notices);
      for (const job of this.lanes.admit(lane, now)) this.countAdmission(job, now);
    }
    // One pending load waits for room before later ones may load: Ollama's scheduler takes them in order.
    for (const lane of this.lanes.waitingForLoad()) {
      const head = lane.queue[0];
      const { loadMs } = this.ratesOf(lane.entry);
      if (head === undefined || !this.lanes.startLoad(lane, now, loadMs, this.keepAlive(head.spec))) break;
      this.stats.coldLoad(lane.entry.name, loadMs);
    }
  }

  private countAdmission(job: Job, now: number): void {
    const counts = this.stats.counts;
    const accounting = job.accounting;
    if (accounting !== undefined) {
      counts.promptTokens += accounting.promptTokens;
      counts.cachedTokens += accounting.cachedTokens;
      counts.evaluatedTokens += accounting.evaluatedTokens;
    }
    const waited = now - (job.readyAt ?? now);
    if (waited > EPSILON) {
      counts.waited++;
      counts.waitMs += waited;
    }
  }

  private finishLoadOnly(job: Job, now: number, notices: Notice[]): void {
    const { queue } = job.lane;
    queue.splice(queue.indexOf(job), 1);
    job.phase = 'finished';
    this.release(job);
    const result = this.resultOf(job, now);
    notices.push(() => job.listener.done(result));
  }

  private startDecode(job: Job, now: number): void {
    job.phase = 'decode';
    job.firstTokenAt = now;
    job.progress = 0;
    job.target = Math.max(0, job.spec.outputTokens - 1);
  }

  private finish(job: Job, now: number, notices: Notice[]): void {
    const lane = job.lane;
    lane.running = lane.running.filter((j) => j !== job);
    job.phase = 'finished';
    if (job.slot !== undefined) {
      job.slot.text = `${job.spec.prompt}${job.spec.separator}${job.spec.answer}`;
      job.slot.inUse = false;
    }
    this.stats.counts.finished++;
    this.stats.counts.outputTokens += job.spec.outputTokens;
    this.release(job);
    const result = this.resultOf(job, now);
    notices.push(() => job.listener.done(result));
  }

  private cancel(job: Job): void {
    if (job.phase === 'finished' || job.phase === 'cancelled') return;
    const lane = job.lane;
    if (job.phase === 'queued') lane.queue.splice(lane.queue.indexOf(job), 1);
    else {
      this.advance(this.deps.clock.now());
      lane.running = lane.running.filter((j) => j !== job);
      this.stats.counts.outputTokens += tokensOut(job, EPSILON);
      if (job.slot !== undefined) {
        // The slot keeps what was processed: the cached prefix and the evaluated part of the prompt.
        const processed = (job.accounting?.cachedTokens ?? 0) + Math.floor(job.progress);
        job.slot.text = job.phase === 'prefill' ? job.spec.prompt.slice(0, processed * 4) : job.spec.prompt;
        job.slot.inUse = false;
      }
    }
    job.phase = 'cancelled';
    this.release(job);
    if (!this.closed) this.tick();
  }

  /** The request leaves the node: uncounted on the hot model, keep-alive refreshed, idle waiters told. */
  private release(job: Job): void {
    job.end?.();
    job.end = undefined;
    const { lane } = job;
    if (lane.hot !== undefined && this.deps.runtime.hotModel(lane.entry.name) === lane.hot) {
      this.deps.runtime.touch(lane.entry.name, this.keepAlive(job.spec));
    }
    this.inFlight--;
    if (this.inFlight === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private retime(): void {
    const active = [...this.lanes.all()].filter((lane) => lane.running.length > 0);
    for (const lane of active) {
      const rates = this.ratesOf(lane.entry);
      const prefilling = lane.running.filter((job) => job.phase === 'prefill').length;
      const speeds = { prefill: rates.prefillPerMs, decode: rates.decodePerMs, beta: this.deps.model.batchBeta };
      const shares = requestRates({ prefilling, decoding: lane.running.length - prefilling }, speeds, active.length);
      for (const job of lane.running)
        job.rate = (job.phase === 'prefill' ? shares.prefill : shares.decode) * job.factor;
    }
  }

  private report(notices: Notice[]): void {
    for (const lane of this.lanes.all()) {
      for (const job of lane.running) {
        if (!job.spec.streamTokens || job.listener.tokens === undefined) continue;
        const count = tokensOut(job, EPSILON);
        if (count <= job.reported) continue;
        job.reported = count;
        const tokens = job.listener.tokens.bind(job.listener);
        notices.push(() => tokens(count));
      }
    }
  }

  /** One timer for the node: the earliest load end, prefill end, stream token or answer end. */
  private schedule(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.closed) return;
    const now = this.deps.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const lane of this.lanes.all()) {
      if (lane.state === 'loading') next = Math.min(next, lane.loadEndsAt);
      for (const job of lane.running) {
        if (job.rate > 0) next = Math.min(next, now + workToNextEvent(job, EPSILON) / job.rate);
      }
    }
    if (Number.isFinite(next)) this.cancelTimer = this.deps.clock.schedule(next, () => this.tick());
  }

  private resultOf(job: Job, now: number): JobResult {
    const accounting = job.accounting;
    return {
      arrivedAt: job.arrivedAt,
      readyAt: job.readyAt ?? now,
      admittedAt: job.spec.loadOnly ? now : job.admittedAt,
      firstTokenAt: job.spec.loadOnly ? now : job.firstTokenAt,
      finishedAt: now,
      promptTokens: accounting?.promptTokens ?? 0,
      cachedTokens: accounting?.cachedTokens ?? 0,
      evaluatedTokens: accounting?.evaluatedTokens ?? 0,
      outputTokens: job.spec.loadOnly ? 0 : job.spec.outputTokens,
    };
  }

  /** keep_alive in wall-clock ms: compressed with the rest of time (forever stays forever). */
  private keepAlive(spec: JobSpec): number {
    const modelled = spec.keepAliveMs ?? this.deps.keepAliveMs;
    return modelled < 0 ? -1 : modelled / this.deps.model.timeScale;
  }

  private ratesOf(entry: CatalogModel): WallRates {
    let rates = this.wallRates.get(entry.name);
    if (rates === undefined) {
      const { model } = this.deps;
      const modelled =
        model.models.find((m) => m.model === entry.name) ?? modelRates(model.hardware, entry, model.speed);
      rates = {
        prefillPerMs: (modelled.prefillTokensPerSecond * model.timeScale) / 1000,
        decodePerMs: (modelled.decodeTokensPerSecond * model.timeScale) / 1000,
        loadMs: modelled.loadMs / model.timeScale,
      };
      this.wallRates.set(entry.name, rates);
    }
    return rates;
  }
}
