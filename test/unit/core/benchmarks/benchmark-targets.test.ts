import { describe, expect, it } from '@jest/globals';
import { benchmarkTargets } from '../../../../lib/core/benchmarks/benchmark-targets';
import { gpu1, gpu2, gpu3, smallFleet, studio } from '../../../helpers/small-fleet';

describe('benchmarkTargets', () => {
  it('loads chat models hot on online nodes only, with no more loops than the node runs at once', () => {
    // gpu1 (online, 2 parallel) and studio (online, 4) have models hot; gpu2 is degraded, gpu3 offline.
    expect(benchmarkTargets(smallFleet([studio, gpu3, gpu2, gpu1]), ['llm'])).toEqual([
      { type: 'llm', model: 'llama3.2:3b', workers: 2, nodeIds: ['gpu1'] },
      { type: 'llm', model: 'qwen3:32b', workers: 4, nodeIds: ['studio'] },
    ]);
  });

  it('caps a node per type and honours the concurrency overrides', () => {
    const targets = benchmarkTargets(smallFleet([studio, gpu1]), ['llm', 'embed', 'image'], new Map([['gpu1', 1]]));

    expect(targets).toEqual([
      { type: 'embed', model: 'nomic-embed-text', workers: 2, nodeIds: ['studio'] },
      { type: 'embed', model: 'nomic-embed-text:latest', workers: 1, nodeIds: ['gpu1'] },
      { type: 'image', model: 'sd3-medium', workers: 1, nodeIds: ['studio'] },
      { type: 'image', model: 'z-image-turbo', workers: 1, nodeIds: ['studio'] },
      { type: 'llm', model: 'llama3.2:3b', workers: 1, nodeIds: ['gpu1'] },
      { type: 'llm', model: 'qwen3:32b', workers: 4, nodeIds: ['studio'] },
    ]);
  });

  it('leaves a draining node out', () => {
    expect(benchmarkTargets(smallFleet([{ ...gpu1, draining: true }]), ['llm'])).toEqual([]);
  });
});
