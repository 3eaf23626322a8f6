/**
 * One candidate's score (issue: routing item 1): the sum of every signal in ./signals, with no
 * normalisation, and the breakdown that explains it (signal name → points and reason; the names are
 * the reference's `scores_breakdown` keys, so traces read the same). Pure.
 */
import {
  contextFit,
  expectedLoad,
  expectedPrefill,
  expectedWait,
  memoryFit,
  queueDepth,
  roleAffinity,
  type Signal,
  type SignalInput,
  type SignalName,
  sessionAffinity,
  thermal,
} from './signals';

export type ScoreBreakdown = Readonly<Record<SignalName, Signal>>;

/** Points per signal, as the reference's `scores_breakdown` has them: what a trace keeps of a breakdown. */
export type ScorePoints = Readonly<Record<SignalName, number>>;

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
    expected_wait: expectedWait(input),
    expected_load: expectedLoad(input),
    expected_prefill: expectedPrefill(input),
    role_affinity: roleAffinity(input),
    context_fit: contextFit(input),
    session_affinity: sessionAffinity(input),
  };
  const total =
    breakdown.thermal.points +
    breakdown.memory_fit.points +
    breakdown.queue_depth.points +
    breakdown.expected_wait.points +
    breakdown.expected_load.points +
    breakdown.expected_prefill.points +
    breakdown.role_affinity.points +
    breakdown.context_fit.points +
    breakdown.session_affinity.points;
  return { total, breakdown };
}

/**
 * The breakdown's points without its reasons. The reasons are constants of ./signals, so a trace that
 * kept them would repeat the same sentences in every request's record: they were more than half of a
 * chat trace's bytes, and the router's cost per request grew with those bytes (JSON, the trace page,
 * its compression). A literal with the keys in one order: every trace's breakdown shares one hidden class.
 */
export function breakdownPoints(breakdown: ScoreBreakdown): ScorePoints {
  return {
    thermal: breakdown.thermal.points,
    memory_fit: breakdown.memory_fit.points,
    queue_depth: breakdown.queue_depth.points,
    expected_wait: breakdown.expected_wait.points,
    expected_load: breakdown.expected_load.points,
    expected_prefill: breakdown.expected_prefill.points,
    role_affinity: breakdown.role_affinity.points,
    context_fit: breakdown.context_fit.points,
    session_affinity: breakdown.session_affinity.points,
  };
}
