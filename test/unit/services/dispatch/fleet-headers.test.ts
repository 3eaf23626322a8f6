import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import type { RoutingDecision } from '../../../../lib/services/dispatch/dispatcher';
import { fleetHeaders } from '../../../../lib/services/dispatch/fleet-headers';

const decision = (fields: Partial<RoutingDecision>): RoutingDecision => ({
  nodeId: 'gpu1',
  score: 81.25,
  breakdown: {} as RoutingDecision['breakdown'],
  retries: 0,
  requestedModel: 'llama3.2:3b',
  servedModel: 'llama3.2:3b',
  ...fields,
});

describe('fleetHeaders', () => {
  it('names the node, score and model that served', () => {
    expect(fleetHeaders(decision({}))).toEqual({
      'x-fleet-node': 'gpu1',
      'x-fleet-score': '81.3',
      'x-fleet-model': 'llama3.2:3b',
    });
  });

  it('writes node and model names no header could carry as values Node writes', () => {
    const headers = fleetHeaders(
      decision({ nodeId: 'gpü-1', servedModel: '模型:7b\u0000', fallbackModel: `q${'€'.repeat(10_000)}`, retries: 1 }),
    );

    for (const [name, value] of Object.entries(headers)) expect(() => validateHeaderValue(name, value)).not.toThrow();
    expect(decodeURIComponent(headers['x-fleet-model'] ?? '')).toBe('模型:7b\u0000');
    expect(headers['x-fleet-node']).toBe('gp%C3%BC-1');
    expect(headers['x-fleet-fallback']?.length).toBeLessThanOrEqual(2048);
  });
});
