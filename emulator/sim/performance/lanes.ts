/**
 * Where each request waits and which models are loaded (`LaneTable`): one lane per model with its load
 * state, its FIFO queue, its running requests and its prompt-cache slots, kept in step with the model
 * runtime (a model the runtime dropped — expiry, eviction, unload — makes its lane cold and loses its
 * caches). Loads take room from idle models only; admissions give each head of queue the free slot with
 * the longest cached prefix. The scheduler decides when; this table decides what.
 */
import type { CatalogModel } from '../catalog';
import type { ModelRuntime } from '../runtime';
import type { Job, Lane } from './job';
import { accountPrompt, createSlots, findBestCacheSlot, findLongestCacheSlot } from './prompt-cache';

export class LaneTable {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly runtime: ModelRuntime,
    private readonly numParallel: number,
    /** OLLAMA_MULTIUSER_CACHE: slots are chosen to keep each user's prefix (./prompt-cache `findBestCacheSlot`). */
    private readonly multiUserCache = false,
  ) {}

  all(): IterableIterator<Lane> {
    return this.lanes.values();
  }

  /** The lane of `entry`, ready at once when the model was loaded outside the scheduler (node.load, embeddings). */
  laneOf(entry: CatalogModel): Lane {
    let lane = this.lanes.get(entry.name);
    if (lane === undefined) {
      lane = { entry, state: 'cold', hot: undefined, loadEndsAt: 0, queue: [], running: [], slots: [] };
      lane.slots = createSlots(this.numParallel);
      this.lanes.set(entry.name, lane);
    }
    this.refresh(lane);
    if (lane.state === 'cold' && lane.queue.length === 0 && lane.running.length === 0) {
      const hot = this.runtime.hotModel(entry.name);
      if (hot !== undefined) {
        lane.state = 'ready';
        lane.hot = hot;
      }
    }
    return lane;
  }

  /** Makes the lane cold when the runtime no longer holds the model the lane loaded. */
  refresh(lane: Lane): void {
    if (lane.state !== 'cold' && this.runtime.hotModel(lane.entry.name) !== lane.hot) this.markCold(lane);
  }

  /** The model is gone: its slots' caches with it; waiting requests will wait for a new load. */
  markCold(lane: Lane): void {
    lane.state = 'cold';
    lane.hot = undefined;
    lane.slots = createSlots(this.numParallel);
    for (const job of lane.queue) {
      job.end?.();
      job.end = undefined;
      job.readyAt = undefined;
    }
  }

  /** Counts the job on the hot model, so that the model is busy (never evicted) while it waits or runs. */
  attach(job: Job): void {
    job.end ??= this.runtime.begin(job.lane.entry.name);
  }

  /** Cold lanes with requests waiting, in the order their first request arrived. */
  waitingForLoad(): Lane[] {
    const cold = [...this.lanes.values()].filter((lane) => lane.state === 'cold' && lane.queue.length > 0);
    return cold.sort((a, b) => (a.queue[0]?.arrivedAt ?? 0) - (b.queue[0]?.arrivedAt ?? 0));
  }

  /**
   * Starts loading the lane's model for the head of its queue, evicting idle models to make room;
   * false (nothing done) when busy models leave no room.
   */
  startLoad(lane: Lane, now: number, loadMs: number, keepAliveMs: number): boolean {
    const head = lane.queue[0];
    if (head === undefined) return false;
    const context = this.runtime.contextFor(lane.entry, head.spec.numCtx);
    if (!this.runtime.makeRoomFor(lane.entry, context)) return false;
    this.runtime.load(lane.entry.name, keepAliveMs, head.spec.numCtx);
    lane.hot = this.runtime.hotModel(lane.entry.name);
    lane.state = 'loading';
    lane.slots = createSlots(this.numParallel);
    lane.loadEndsAt = now + loadMs;
    for (const job of lane.queue) this.attach(job);
    return true;
  }

  finishLoad(lane: Lane, now: number): void {
    this.refresh(lane);
    if (lane.state !== 'loading') return;
    lane.state = 'ready';
    for (const job of lane.queue) job.readyAt ??= now;
  }

  /**
   * Gives free slots to the heads of a ready lane's queue, in order; returns the jobs admitted. A head
   * asking a different num_ctx waits for the running requests, then the model is unloaded for a reload.
   */
  admit(lane: Lane, now: number): Job[] {
    const admitted: Job[] = [];
    const hot = lane.hot;
    while (hot !== undefined && lane.state === 'ready' && lane.queue.length > 0) {
      const head = lane.queue[0] as Job;
      if (this.runtime.contextFor(lane.entry, head.spec.numCtx) !== hot.contextLength) {
        if (lane.running.length === 0) {
          this.runtime.unload(lane.entry.name);
          this.markCold(lane);
        }
        break;
      }
      const choice = (this.multiUserCache ? findBestCacheSlot : findLongestCacheSlot)(lane.slots, head.spec.prompt);
      const slot = choice === undefined ? undefined : lane.slots[choice.index];
      if (choice === undefined || slot === undefined) break;
      lane.queue.shift();
      slot.inUse = true;
      slot.lastUsed = now;
      slot.text = head.spec.prompt;
      head.accounting = accountPrompt(head.spec.prompt, choice.prefixChars, hot.contextLength);
      head.phase = 'prefill';
      head.slot = slot;
      head.progress = 0;
      head.target = head.accounting.evaluatedTokens;
      head.admittedAt = now;
      lane.running.push(head);
      admitted.push(head);
    }
    return admitted;
  }

  /** Requests waiting on a model that is not loading yet: no hot model counts them. */
  unplaced(): number {
    let count = 0;
    for (const lane of this.lanes.values()) if (lane.state === 'cold') count += lane.queue.length;
    return count;
  }

  running(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.running.length;
    return count;
  }

  waitingForSlot(): number {
    let count = 0;
    for (const lane of this.lanes.values()) if (lane.state === 'ready') count += lane.queue.length;
    return count;
  }
}
