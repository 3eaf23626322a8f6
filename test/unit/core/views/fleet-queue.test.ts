import { describe, expect, it } from '@jest/globals';
import { toFleetQueue } from '../../../../lib/core/views/fleet-queue';
import { queuesFromSnapshot } from '../../../../lib/core/views/queues-from-snapshot';
import { T0 } from '../../../helpers/factories';
import { smallFleet } from '../../../helpers/small-fleet';

const ADMISSION = { max_pending: 512, timeout_ms: 600_000 };

describe('toFleetQueue', () => {
  it('sums pending and in-flight over every queue, and who waits by priority and application', () => {
    const queues = [
      {
        nodeId: 'gpu2',
        model: 'llama3.2:3b',
        pending: 3,
        inFlight: 1,
        concurrency: 1,
        waiting: { byPriority: { high: 0, normal: 1, low: 2 }, byApp: { 'tag:batch': 2, 'tag:chat': 1 } },
      },
      { nodeId: 'gpu1', model: 'llama3.2:3b', pending: 0, inFlight: 2, concurrency: 2 },
      {
        nodeId: 'gpu1',
        model: 'qwen3:8b',
        pending: 1,
        inFlight: 1,
        concurrency: 1,
        waiting: { byPriority: { high: 1, normal: 0, low: 0 }, byApp: { 'tag:chat': 1 } },
      },
    ];

    expect(toFleetQueue(smallFleet(), queues, T0 + 999, ADMISSION)).toEqual({
      queue_depth: 8,
      pending: 4,
      pending_by_priority: { high: 1, normal: 1, low: 2 },
      pending_by_app: { 'tag:batch': 2, 'tag:chat': 2 },
      in_flight: 4,
      nodes_online: 3,
      queues: {
        'gpu1:llama3.2:3b': { node_id: 'gpu1', model: 'llama3.2:3b', pending: 0, in_flight: 2, concurrency: 2 },
        'gpu1:qwen3:8b': {
          node_id: 'gpu1',
          model: 'qwen3:8b',
          pending: 1,
          in_flight: 1,
          concurrency: 1,
          waiting_by_priority: { high: 1, normal: 0, low: 0 },
          waiting_by_app: { 'tag:chat': 1 },
        },
        'gpu2:llama3.2:3b': {
          node_id: 'gpu2',
          model: 'llama3.2:3b',
          pending: 3,
          in_flight: 1,
          concurrency: 1,
          waiting_by_priority: { high: 0, normal: 1, low: 2 },
          waiting_by_app: { 'tag:batch': 2, 'tag:chat': 1 },
        },
      },
      admission: { max_pending: 512, timeout_ms: 600_000 },
      timestamp: T0 / 1000,
    });
  });

  it('answers zeros for an idle fleet', () => {
    expect(toFleetQueue(smallFleet([]), [], T0, { max_pending: 3, timeout_ms: 5000 })).toEqual({
      queue_depth: 0,
      pending: 0,
      pending_by_priority: { high: 0, normal: 0, low: 0 },
      pending_by_app: {},
      in_flight: 0,
      nodes_online: 0,
      queues: {},
      // the operator's admission settings, as configured
      admission: { max_pending: 3, timeout_ms: 5000 },
      timestamp: T0 / 1000,
    });
  });
});

describe('queuesFromSnapshot', () => {
  it('reports one queue per loaded model on online and degraded nodes, as the nodes count them', () => {
    expect(queuesFromSnapshot(smallFleet())).toEqual([
      { nodeId: 'gpu1', model: 'llama3.2:3b', pending: 0, inFlight: 2, concurrency: 2 },
      { nodeId: 'gpu2', model: 'llama3.2:3b', pending: 0, inFlight: 0, concurrency: 1 },
      { nodeId: 'studio', model: 'qwen3:32b', pending: 0, inFlight: 1, concurrency: 4 },
    ]);
  });
});
