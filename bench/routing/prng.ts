/**
 * The routing bench's one source of chance (issue 41 item 3): mulberry32, a 32-bit seeded generator, so the
 * same seed gives every strategy the same workload, word for word. Not for anything but benchmarks.
 */

export type Random = () => number;

/** A generator of floats in [0, 1) from `seed`; the same seed, the same sequence (the simulator's own). */
export { seededRandom } from '../../emulator/sim/hash';

/** A seed derived from `seed` and `salt`, so independent streams (one per conversation) do not overlap. */
export function childSeed(seed: number, salt: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35)) >>> 0;
}

/** An index into `weights` drawn in proportion to them. */
export function pickWeighted(random: Random, weights: readonly number[]): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let left = random() * total;
  for (const [index, weight] of weights.entries()) {
    left -= weight;
    if (left < 0) return index;
  }
  return weights.length - 1;
}
