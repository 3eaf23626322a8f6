/**
 * How much memory a model really takes once loaded (issue: routing item 1, "by its real size — never a
 * fixed guess"): on a node where it is hot, what that node reports; elsewhere, the smallest resident
 * size any node reports for it (weights plus a real KV cache), never less than its size on disk; else
 * its size on disk. 0 means unknown, and an unknown size eliminates nothing (the reference's 10 GB
 * guess for unknown models once loaded a 290 GB model onto a 512 GB machine: anchor §2.2). Pure.
 */
import type { ModelPlacement } from '../fleet/node';

/**
 * The smallest resident size reported among the placements (0 when none is loaded anywhere). One pass,
 * no allocation: the scorer calls it once per model per request.
 */
export function observedResidentBytes(placements: readonly ModelPlacement[]): number {
  let smallest = 0;
  for (let index = 0; index < placements.length; index += 1) {
    const size = placements[index]?.loaded?.size ?? 0;
    if (size > 0 && (smallest === 0 || size < smallest)) smallest = size;
  }
  return smallest;
}

/** Bytes the model occupies (or will) on this placement's node; 0 when nobody said. */
export function residentBytes(placement: ModelPlacement, observed: number): number {
  const loadedHere = placement.loaded?.size ?? 0;
  if (loadedHere > 0) return loadedHere;
  const onDisk = placement.model?.size ?? 0;
  return Math.max(observed, onDisk);
}
