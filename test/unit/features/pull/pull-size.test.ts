import { describe, expect, it } from '@jest/globals';
import {
  bitsPerWeight,
  estimatePullBytes,
  parameterCount,
  pullSize,
  SIZE_FLOOR_BYTES,
} from '../../../../lib/features/pull/pull-size';
import { bareAgentNode, makeNodeModel, snapshotOf } from '../../../helpers/factories';

describe('parameterCount', () => {
  it.each([
    ['qwen2.5:7b', 7e9],
    ['llama3.1:70b-instruct-q4_K_M', 70e9],
    ['qwen2.5:0.5b', 0.5e9],
    ['phi3:3.8b', 3.8e9],
    ['gemma3:270m', 270e6],
    ['mixtral:8x7b', 56e9],
    ['qwen3:30b-a3b', 30e9],
    ['deepseek-r1:671b', 671e9],
    ['hf.co/org/Qwen2.5-14B-Instruct-GGUF', 14e9],
  ])('reads %s as %d parameters', (name, count) => {
    expect(parameterCount(name)).toBeCloseTo(count, -3);
  });

  it.each(['llama3', 'llama3.2:latest', 'nomic-embed-text', 'mistral:instruct', 'qwen2.5-coder:q4_K_M'])(
    'finds no count in %s',
    (name) => {
      expect(parameterCount(name)).toBeUndefined();
    },
  );
});

describe('bitsPerWeight', () => {
  it.each([
    ['llama3.1:8b', 4.5],
    ['llama3.1:8b-instruct-fp16', 16],
    ['llama3.1:8b-instruct-bf16', 16],
    ['llama3.1:8b-instruct-q8_0', 8.5],
    ['llama3.1:8b-instruct-q6_K', 6.6],
    ['llama3.1:8b-instruct-q5_K_M', 5.5],
  ])('gives %s %d bits', (name, bits) => {
    expect(bitsPerWeight(name)).toBe(bits);
  });
});

describe('estimatePullBytes', () => {
  it('gives 4.5 bits a parameter, 20 % more and 0.5 GB for a stated count', () => {
    expect(estimatePullBytes('qwen2.5:7b')).toEqual({ bytes: 7e9 * (4.5 / 8) * 1.2 + 0.5e9, source: 'estimate' });
  });

  it('uses 16 bits for an fp16 tag', () => {
    expect(estimatePullBytes('llama3.1:8b-instruct-fp16').bytes).toBe(8e9 * 2 * 1.2 + 0.5e9);
  });

  it('falls back to the stated floor without a count', () => {
    expect(estimatePullBytes('llama3')).toEqual({ bytes: SIZE_FLOOR_BYTES, source: 'floor' });
    expect(SIZE_FLOOR_BYTES).toBe(8e9);
  });
});

describe('pullSize', () => {
  it('takes the largest size of the name on any node, its :latest twin included', () => {
    const fleet = snapshotOf([
      bareAgentNode('a', 10, { models: [makeNodeModel({ name: 'custom:latest', size: 3e9 })] }),
      bareAgentNode('b', 10, { models: [makeNodeModel({ name: 'custom', size: 5e9 })] }),
    ]);

    expect(pullSize(fleet, 'custom')).toEqual({ bytes: 5e9, source: 'fleet' });
  });

  it('counts offline nodes too', () => {
    const fleet = snapshotOf([
      bareAgentNode('gone', 10, { lastSeenAt: 0, models: [makeNodeModel({ name: 'qwen3:8b', size: 5.2e9 })] }),
    ]);

    expect(pullSize(fleet, 'qwen3:8b')).toEqual({ bytes: 5.2e9, source: 'fleet' });
  });

  it('estimates when no node reports a size', () => {
    const fleet = snapshotOf([bareAgentNode('a', 10, { models: [makeNodeModel({ name: 'qwen2.5:7b', size: 0 })] })]);

    expect(pullSize(fleet, 'qwen2.5:7b').source).toBe('estimate');
  });
});
