/**
 * When the spaced-arrivals run sends what (issue 42: requests about a second apart, as a person chatting
 * or an agent between tool calls sends them). The targets take turns — the proxy, the router, the proxy …
 * — and the time between two sends is drawn uniformly from `meanGapMs / targets × (1 ± spread)`, so each
 * target gets a request every `meanGapMs × (1 ± spread)` (the sum of one draw per target), the whole run
 * taking about `perTarget` gaps and not `perTarget` × targets. Open loop: a send is due at its time whether
 * or not the one before has been answered. Each target alternates streaming and non-streaming, so both
 * kinds get half its requests; the first `warmUp` turns (a request to each target) are not counted. Seeded:
 * the same seed, the same schedule. Pure.
 */
import { seededRandom } from '../emulator/sim/hash';

export interface SpacedSend<Target extends string> {
  /** Milliseconds after the run starts. */
  readonly atMs: number;
  readonly target: Target;
  readonly streaming: boolean;
  /** False for the warm-up turns. */
  readonly counted: boolean;
}

export interface SpacedOptions {
  /** Counted requests each target gets (half of them streaming). */
  readonly perTarget: number;
  readonly seed: number;
  /** The mean time between two requests to one target. */
  readonly meanGapMs?: number;
  /** How far a gap may stray from the mean, as a share of it. */
  readonly spread?: number;
  /** Uncounted turns first. */
  readonly warmUp?: number;
}

export function spacedSchedule<Target extends string>(
  targets: readonly Target[],
  options: SpacedOptions,
): SpacedSend<Target>[] {
  const { perTarget, seed, meanGapMs = 1000, spread = 0.5, warmUp = 4 } = options;
  const random = seededRandom(seed);
  const step = meanGapMs / targets.length;
  const sends: SpacedSend<Target>[] = [];
  let atMs = 0;
  for (let turn = 0; turn < warmUp + perTarget; turn += 1) {
    for (const target of targets) {
      sends.push({ atMs, target, streaming: turn % 2 === 0, counted: turn >= warmUp });
      atMs += step * (1 - spread + 2 * spread * random());
    }
  }
  return sends;
}
