import { describe, expect, it } from '@jest/globals';
import type { ScoreBreakdown } from '../../../../lib/core/scoring/score';
import type { RoutingDecision } from '../../../../lib/services/dispatch/dispatcher';
import { routedTraceFields } from '../../../../lib/services/dispatch/request-trace';

const signal = { points: 0, reason: '' };
const breakdown: ScoreBreakdown = {
  thermal: { points: 50, reason: 'model is loaded' },
  memory_fit: signal,
  queue_depth: signal,
  expected_wait: signal,
  expected_load: signal,
  expected_prefill: signal,
  role_affinity: signal,
  context_fit: signal,
  session_affinity: signal,
};
const decision: RoutingDecision = {
  nodeId: 'b',
  score: 50,
  breakdown,
  retries: 0,
  requestedModel: 'llama3.2:3b',
  servedModel: 'llama3.2:3b',
};

describe('routedTraceFields', () => {
  it('names the ejected nodes routing skipped, and why', () => {
    const skipped = ['a: node is ejected for 25 s more (no first byte in time: Headers Timeout Error)'];

    const fields = routedTraceFields({ ...decision, skipped }, 'completed');

    expect(fields).toMatchObject({ nodeId: 'b', skipped });
  });

  it('leaves skipped out when no node was', () => {
    expect(routedTraceFields(decision, 'completed')).not.toHaveProperty('skipped');
  });

  it('says how long routing waited for the fleet read, and nothing when it did not wait', () => {
    expect(routedTraceFields({ ...decision, tableWaitMs: 3 }, 'completed')).toMatchObject({ tableWaitMs: 3 });
    expect(routedTraceFields(decision, 'completed')).not.toHaveProperty('tableWaitMs');
  });
});
