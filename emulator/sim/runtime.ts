/**
 * The state of one simulated Ollama runtime: models on disk, models held hot (with `keep_alive` expiry,
 * least-recently-used eviction beyond `maxLoadedModels`, the context they were loaded with) and requests
 * in flight per model. Expired models drop out lazily, the way Ollama's scheduler unloads them.
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
}

export interface RuntimeOptions {
  readonly keepAliveMs: number;
  readonly maxLoadedModels: number;
  readonly defaultNumCtx: number;
}

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

  constructor(private readonly options: RuntimeOptions) {}

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
    const wanted = numCtx ?? current?.contextLength ?? this.options.defaultNumCtx;
    const contextLength = Math.min(wanted, entry.contextLength);
    const cold = current === undefined || current.contextLength !== contextLength;
    if (current === undefined) this.makeRoom(now);
    const expiresAt = keepAliveMs < 0 ? Number.POSITIVE_INFINITY : now + keepAliveMs;
    // Refreshed in place: a request in flight counts itself out of this same object (`begin`).
    if (current === undefined) this.hot.set(entry.name, { entry, expiresAt, contextLength, requestsActive: 0 });
    else {
      current.expiresAt = expiresAt;
      current.contextLength = contextLength;
    }
    return cold;
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
