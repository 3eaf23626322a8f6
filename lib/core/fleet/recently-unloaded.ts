/**
 * The "warm" signal for the scorer (anchor §1.4): which models dropped out of a node's loaded set, and
 * when. Diffed on every heartbeat or poll against the previous record. Pure.
 */
import type { LoadedModel, NodeRecord } from './node';

/** Entries older than this are dropped: an hour-old unload is no warmer than a cold model. */
export const RECENTLY_UNLOADED_TTL_MS = 3_600_000;

/**
 * Keeps the previous entries younger than the TTL, stamps `now` on every model that was loaded before
 * and is not now, and removes any model loaded again.
 */
export function nextRecentlyUnloaded(
  previous: NodeRecord | undefined,
  loadedNow: readonly LoadedModel[],
  now: number,
): Readonly<Record<string, number>> {
  const hot = new Set(loadedNow.map((model) => model.name));
  const next: Record<string, number> = {};
  if (previous === undefined) return next;
  for (const [name, at] of Object.entries(previous.recentlyUnloaded)) {
    if (!hot.has(name) && now - at <= RECENTLY_UNLOADED_TTL_MS) next[name] = at;
  }
  for (const model of previous.loaded) {
    if (!hot.has(model.name)) next[model.name] = now;
  }
  return next;
}
