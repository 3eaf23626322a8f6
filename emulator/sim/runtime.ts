/**
 * The state of one simulated Ollama runtime: models on disk, models held hot (with `keep_alive` expiry,
 * least-recently-used eviction beyond `maxLoadedModels`, the context they were loaded with) and requests
 * in flight per model. Expired models drop out lazily, the way Ollama's scheduler unloads them.
 *
 * With a memory budget (simulated nodes with a performance model) hot models also occupy bytes — weights
 * plus KV cache — and making room evicts only idle models, least recently used first, as Ollama does.
 */
import { type CatalogModel, withTag } from './catalog';
import { fnv1a32 } from './hash';

export interface DiskModel {
  readonly entry: CatalogModel;
  /** Epoch ms. */
  readonly modifiedAt: number;
}

export interface HotModel {
  readonly entry: CatalogModel;
  /** Epoch ms the model unloads; `Infinity` = kept forever (negative `keep_alive`). */
  expiresAt: number;
  contextLength: number;
  requestsActive: number;
  /** KV cache bytes per token of `contextLength` (all parallel slots together). */
  readonly kvBytesPerToken: number;
  /** Rank of the last use (a counter, not a clock): the lowest is the least recently used. */
  lastUsed: number;
}

export interface RuntimeOptions {
  readonly keepAliveMs: number;
  readonly maxLoadedModels: number;
  readonly defaultNumCtx: number;
  /** Bytes models may occupy; when set, making room evicts idle models only (see the header). */
  readonly memoryBytes?: number;
  /** KV cache bytes per token of context for a model (default: `DEFAULT_KV_BYTES_PER_TOKEN`). */
  readonly kvBytesPerToken?: (entry: CatalogModel) => number;
}

/** Bytes of KV cache per token of context a loaded model adds to its weights, without a performance model. */
export const DEFAULT_KV_BYTES_PER_TOKEN = 32_768;

/** 2025-06-01T00:00:00Z: catalogue models look downloaded some days before it. */
const CATALOG_EPOCH_MS = Date.UTC(2025, 5, 1);

/** A stable "downloaded at" time for a catalogue model. */
export function catalogModifiedAt(name: string): number {
  const hash = fnv1a32(name);
  return CATALOG_EPOCH_MS - (hash % 90) * 86_400_000 - (hash % 86_400) * 1000;
}

export class ModelRuntime {
  private readonly disk = new Map<string, DiskModel>();
  private readonly hot = new Map<string, HotModel>();
  /** Resolved when the last request in flight ends (`whenIdle`). */
  private idleWaiters: (() => void)[] = [];
  private useCounter = 0;
  private evictionListener: (name: string) => void = () => {};

  constructor(private readonly options: RuntimeOptions) {}

  /** Called with the name of every model unloaded to make room (not on expiry or an explicit unload). */
  onEvict(listener: (name: string) => void): void {
    this.evictionListener = listener;
  }

  /** The model on disk called `name` (tag optional). */
  find(name: string): CatalogModel | undefined {
    return this.disk.get(withTag(name))?.entry;
  }

  add(entry: CatalogModel, modifiedAt: number): void {
    this.disk.set(entry.name, { entry, modifiedAt });
  }

  remove(name: string): boolean {
    this.hot.delete(withTag(name));
    return this.disk.delete(withTag(name));
  }

  /** Models on disk, newest first (Ollama's `/api/tags` order). */
  listDisk(): DiskModel[] {
    return [...this.disk.values()].sort(
      (a, b) => b.modifiedAt - a.modifiedAt || a.entry.name.localeCompare(b.entry.name),
    );
  }

  /** Hot models, longest remaining lifetime first (Ollama's `/api/ps` order). */
  listHot(now: number = Date.now()): HotModel[] {
    this.expire(now);
    return [...this.hot.values()].sort((a, b) => b.expiresAt - a.expiresAt);
  }

  hotModel(name: string, now: number = Date.now()): HotModel | undefined {
    this.expire(now);
    return this.hot.get(withTag(name));
  }

  /**
   * Makes `name` hot (evicting the least recently used model when full) and refreshes its expiry.
   * Returns true when this was a cold load (not hot before, or reloaded for a different `num_ctx`).
   */
  load(name: string, keepAliveMs: number = this.options.keepAliveMs, numCtx?: number): boolean {
    const entry = this.find(name);
    if (entry === undefined) return false;
    const now = Date.now();
    const current = this.hotModel(entry.name, now);
    const contextLength = this.contextFor(entry, numCtx, now);
    const cold = current === undefined || current.contextLength !== contextLength;
    if (current === undefined && this.options.memoryBytes === undefined) this.makeRoom(now);
    // With a memory budget a model that still does not fit is loaded anyway (over-committed), as a
    // manual load or an embedding request would spill to the CPU on a real node.
    else if (current === undefined) this.makeRoomFor(entry, contextLength, now);
    const expiresAt = expiryOf(keepAliveMs, now);
    // Refreshed in place: a request in flight counts itself out of this same object (`begin`).
    if (current === undefined) {
      const kvBytesPerToken = this.options.kvBytesPerToken?.(entry) ?? DEFAULT_KV_BYTES_PER_TOKEN;
      const lastUsed = ++this.useCounter;
      this.hot.set(entry.name, { entry, expiresAt, contextLength, requestsActive: 0, kvBytesPerToken, lastUsed });
    } else {
      current.expiresAt = expiresAt;
      current.contextLength = contextLength;
      current.lastUsed = ++this.useCounter;
    }
    return cold;
  }

  /** The context `entry` runs with for a request asking `numCtx` (its current one, or the default). */
  contextFor(entry: CatalogModel, numCtx: number | undefined, now: number = Date.now()): number {
    const wanted = numCtx ?? this.hotModel(entry.name, now)?.contextLength ?? this.options.defaultNumCtx;
    return Math.min(wanted, entry.contextLength);
  }

  /** Bytes `entry` occupies loaded with `contextLength`: weights plus KV cache. */
  sizeOf(entry: CatalogModel, contextLength: number): number {
    const kv = this.options.kvBytesPerToken?.(entry) ?? DEFAULT_KV_BYTES_PER_TOKEN;
    return entry.size + contextLength * kv;
  }

  /** Bytes the hot models occupy now. */
  usedBytes(now: number = Date.now()): number {
    let used = 0;
    for (const hot of this.listHot(now)) used += hot.entry.size + hot.contextLength * hot.kvBytesPerToken;
    return used;
  }

  /**
   * Memory budget: unloads idle models, least recently used first, until `entry` with `contextLength`
   * fits beside the others (count and bytes). False when models busy with requests leave no room; true
   * for a model larger than the whole budget once nothing else is loaded.
   */
  makeRoomFor(entry: CatalogModel, contextLength: number, now: number = Date.now()): boolean {
    const budget = this.options.memoryBytes ?? Number.POSITIVE_INFINITY;
    const need = this.sizeOf(entry, contextLength);
    const others = () => this.listHot(now).filter((hot) => hot.entry.name !== entry.name);
    for (;;) {
      const loaded = others();
      const used = loaded.reduce((sum, hot) => sum + hot.entry.size + hot.contextLength * hot.kvBytesPerToken, 0);
      if (loaded.length < this.options.maxLoadedModels && used + need <= budget) return true;
      if (loaded.length === 0) return true;
      const idle = loaded.filter((hot) => hot.requestsActive === 0).sort((a, b) => a.lastUsed - b.lastUsed);
      const victim = idle[0];
      if (victim === undefined) return false;
      this.hot.delete(victim.entry.name);
      this.evictionListener(victim.entry.name);
    }
  }

  /** Refreshes a hot model's expiry (a request on it ended); nothing when it is not hot. */
  touch(name: string, keepAliveMs: number = this.options.keepAliveMs): void {
    const hot = this.hot.get(withTag(name));
    if (hot === undefined) return;
    const now = Date.now();
    hot.expiresAt = expiryOf(keepAliveMs, now);
    hot.lastUsed = ++this.useCounter;
  }

  unload(name: string): void {
    this.hot.delete(withTag(name));
  }

  /** Replaces the hot set with `names` (unknown names are ignored). */
  setLoaded(names: readonly string[]): void {
    this.hot.clear();
    for (const name of names) this.load(name);
  }

  /** Counts a request in flight on a hot model; returns the function that ends it. */
  begin(name: string): () => void {
    const hot = this.hot.get(withTag(name));
    if (hot === undefined) return () => {};
    hot.requestsActive++;
    hot.lastUsed = ++this.useCounter;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      hot.requestsActive = Math.max(0, hot.requestsActive - 1);
      if (this.idleWaiters.length > 0 && this.requestsActive() === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    };
  }

  /** Resolves once no request is in flight: at once when none is, else when the last one ends. */
  whenIdle(): Promise<void> {
    if (this.requestsActive() === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  requestsActive(): number {
    let total = 0;
    for (const hot of this.hot.values()) total += hot.requestsActive;
    return total;
  }

  private expire(now: number): void {
    for (const [name, hot] of this.hot) {
      if (hot.expiresAt <= now && hot.requestsActive === 0) this.hot.delete(name);
    }
  }

  private makeRoom(now: number): void {
    this.expire(now);
    while (this.hot.size >= this.options.maxLoadedModels && this.hot.size > 0) {
      const oldest = [...this.hot.values()].sort((a, b) => a.expiresAt - b.expiresAt)[0];
      if (oldest === undefined) return;
      this.hot.delete(oldest.entry.name);
    }
  }
}

function expiryOf(keepAliveMs: number, now: number): number {
  return keepAliveMs < 0 ? Number.POSITIVE_INFINITY : now + keepAliveMs;
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Ollama's `keep_alive` in ms: a number is seconds, a string a Go duration (`"5m"`, `"1h30m"`, `"300ms"`)
 * or a plain number of seconds; negative = forever (returned as -1). Undefined for absent, an error
 * message for a bad value.
 */
export function parseKeepAlive(value: unknown): number | undefined | { readonly error: string } {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return value < 0 ? -1 : value * 1000;
  if (typeof value !== 'string') return { error: 'keep_alive must be a number or a duration string' };
  const trimmed = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) return parseKeepAlive(Number(trimmed));
  const match = trimmed.match(/^(-?)((?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+)$/);
  if (match === null) return { error: `time: invalid duration "${value}"` };
  let ms = 0;
  for (const part of (match[2] ?? '').matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) {
    ms += Number(part[1]) * (DURATION_UNITS[part[2] ?? 's'] ?? 1000);
  }
  return match[1] === '-' ? -1 : ms;
}
