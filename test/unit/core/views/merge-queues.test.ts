import { describe, expect, it } from '@jest/globals';
import { mergeQueues } from '../../../../lib/core/views/merge-queues';

describe('mergeQueues', () => {
  it("adds up every instance's queues and lets them win over what the node reports", () => {
    const reported = [
      { nodeId: 'a', model: 'm', pending: 0, inFlight: 2, concurrency: 4 },
      { nodeId: 'b', model: 'm', pending: 0, inFlight: 1, concurrency: 1 },
    ];
    const routed = [
      { nodeId: 'a', model: 'm', pending: 1, inFlight: 3, concurrency: 4 },
      { nodeId: 'a', model: 'm', pending: 2, inFlight: 1, concurrency: 4 },
      { nodeId: 'c', model: 'x', pending: 0, inFlight: 1, concurrency: 2 },
    ];

    expect(mergeQueues(reported, routed)).toEqual([
      { nodeId: 'a', model: 'm', pending: 3, inFlight: 4, concurrency: 4 },
      { nodeId: 'b', model: 'm', pending: 0, inFlight: 1, concurrency: 1 },
      { nodeId: 'c', model: 'x', pending: 0, inFlight: 1, concurrency: 2 },
    ]);
  });

  it("adds up the instances' waiting requests by priority and application", () => {
    const routed = [
      {
        nodeId: 'a',
        model: 'm',
        pending: 2,
        inFlight: 1,
        concurrency: 1,
        waiting: { byPriority: { high: 0, normal: 1, low: 1 }, byApp: { 'tag:chat': 1, 'tag:batch': 1 } },
      },
      { nodeId: 'a', model: 'm', pending: 0, inFlight: 0, concurrency: 1 },
      {
        nodeId: 'a',
        model: 'm',
        pending: 3,
        inFlight: 0,
        concurrency: 1,
        waiting: { byPriority: { high: 1, normal: 0, low: 2 }, byApp: { 'tag:batch': 2, 'key:0a1b2c3d': 1 } },
      },
    ];

    expect(mergeQueues([], routed)).toEqual([
      {
        nodeId: 'a',
        model: 'm',
        pending: 5,
        inFlight: 1,
        concurrency: 1,
        waiting: {
          byPriority: { high: 1, normal: 1, low: 3 },
          byApp: { 'tag:chat': 1, 'tag:batch': 3, 'key:0a1b2c3d': 1 },
        },
      },
    ]);
  });
});
