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
});
