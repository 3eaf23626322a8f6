import { describe, expect, it } from '@jest/globals';
import { REFERENCE_STRATEGY } from '../../../../bench/routing/reference-score';
import { rankNodes } from '../../../../lib/core/scoring/rank-nodes';
import { STRATEGIES } from '../../../../lib/core/scoring/routing-strategy';
import { createNodeRates } from '../../../../lib/services/dispatch/node-rates';
import { agentNode, depthsOf, makeLoadedModel, makeRequest, snapshotOf, T0 } from '../../../helpers/factories';

const state = { turn: () => 0, random: () => 0.5 };
const hot = (id: string, bandwidth: number) =>
  agentNode({ id, loaded: [makeLoadedModel()], hardware: { memoryBandwidthGbps: bandwidth } });

describe('the reference scoring baseline', () => {
  it("knows nothing of a node's measured speed, where the default's expected time to first token does", () => {
    // Two hot nodes; the reference prefers the slower one for a small model (its role affinity), and the
    // default learns that node evaluates prompts at a tenth of the other's rate.
    const snapshot = snapshotOf([hot('fast', 800), hot('slow', 200)]);
    const rates = createNodeRates();
    rates.observe('fast', 'llama3.2:3b', { promptTokens: 2000, promptEvalMs: 500 });
    rates.observe('slow', 'llama3.2:3b', { promptTokens: 2000, promptEvalMs: 5000 });
    const request = makeRequest({ promptTokens: 2000 });
    const context = { now: T0, queues: depthsOf(), rates, top: 100 };
    const ranked = rankNodes(snapshot, request, context).ranked;

    expect(REFERENCE_STRATEGY.order(ranked, state, 'llama3.2:3b').map((c) => c.node.id)).toEqual(['slow', 'fast']);
    expect(STRATEGIES.score.order(ranked, state, 'llama3.2:3b').map((c) => c.node.id)).toEqual(['fast', 'slow']);
  });
});
