/**
 * One candidate's score (issue: routing item 1): the sum of every signal in ./signals, with no
 * normalisation, and the breakdown that explains it (signal name → points and reason; the names are
 * the reference's `scores_breakdown` keys, so traces read the same). Pure.
 */
import {
  contextFit,
  memoryFit,
  queueDepth,
  roleAffinity,
  type Signal,
  type SignalInput,
  type SignalName,
  sessionAffinity,
  thermal,
  waitTime,
} from './signals';

export type ScoreBreakdown = Readonly<Record<SignalName, Signal>>;

export interface Score {
  readonly total: number;
  readonly breakdown: ScoreBreakdown;
}

/**
 * The total and why, built only for the candidates a decision may use; ./rank-nodes adds the same
 * points in the same order, so its totals are these to the last bit.
 */
export function scoreCandidate(input: SignalInput): Score {
  const breakdown: ScoreBreakdown = {
    thermal: thermal(input),
    memory_fit: memoryFit(input),
    queue_depth: queueDepth(input),
    wait_time: waitTime(input),
    role_affinity: roleAffinity(input),
    context_fit: contextFit(input),
    session_affinity: sessionAffinity(input),
  };
  const total =
    breakdown.thermal.points +
    breakdown.memory_fit.points +
    breakdown.queue_depth.points +
    breakdown.wait_time.points +
    breakdown.role_affinity.points +
    breakdown.context_fit.points +
    breakdown.session_affinity.points;
  return { total, breakdown };
}
