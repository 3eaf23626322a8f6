/**
 * The reference implementation's published routing score (Ollama Herd; research: anchor-ollama-herd §2.3),
 * as a baseline for the routing bench only — never an operator's option. It re-orders the router's own
 * ranked candidates by the reference's sum: temperature, memory fit, queue depth (per request, divided by
 * the node's bandwidth over the fleet median, clamped to 0.25–4: −6 each, at most −30), its wait signal
 * (−depth × p75 seconds / 10, at most −25), role affinity, context fit and its session affinity — the
 * points of our signals of the same names, which follow the reference's formulas. It has no notion of a
 * node's measured speed, of a cold load's time, or of a cached prompt. Where it differs from the
 * reference: the p75 is the router's, known once a node's queue is full; ties go by node id (the
 * reference's go to registration order).
 */
import type { RankedCandidate } from '../../lib/core/scoring/rank-nodes';
import type { CandidateOrder, RoutingStrategy } from '../../lib/core/scoring/routing-strategy';
import { median } from '../stats';

const QUEUE_POINTS = 6;
const QUEUE_MAX = 30;
const WAIT_MAX = 25;

export function referenceTotal(candidate: RankedCandidate, medianBandwidth: number | undefined): number {
  const { breakdown, depth } = candidate;
  const bandwidth = candidate.node.hardware.memoryBandwidthGbps;
  const ratio =
    bandwidth !== undefined && medianBandwidth !== undefined && medianBandwidth > 0
      ? Math.min(4, Math.max(0.25, bandwidth / medianBandwidth))
      : 1;
  const queue = depth > 0 ? -Math.min(QUEUE_MAX, (depth / ratio) * QUEUE_POINTS) : 0;
  const p75 = candidate.p75Ms;
  const wait = depth > 0 && p75 !== undefined ? -Math.min(WAIT_MAX, (depth * (p75 / 1000)) / 10) : 0;
  return (
    breakdown.thermal.points +
    breakdown.memory_fit.points +
    queue +
    wait +
    breakdown.role_affinity.points +
    breakdown.context_fit.points +
    breakdown.session_affinity.points
  );
}

const order: CandidateOrder = (ranked) => {
  const candidates = ranked as unknown as readonly RankedCandidate[];
  const bandwidths = candidates.flatMap((candidate) => {
    const bandwidth = candidate.node.hardware.memoryBandwidthGbps;
    return bandwidth !== undefined && bandwidth > 0 ? [bandwidth] : [];
  });
  const medianBandwidth = bandwidths.length === 0 ? undefined : median(bandwidths);
  const totals = new Map(candidates.map((candidate) => [candidate, referenceTotal(candidate, medianBandwidth)]));
  const sorted = [...candidates].sort(
    (a, b) =>
      (totals.get(b) ?? 0) - (totals.get(a) ?? 0) || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0),
  );
  return sorted as unknown as typeof ranked;
};

export const REFERENCE_STRATEGY: RoutingStrategy = { name: 'reference', order, needsAll: true };
