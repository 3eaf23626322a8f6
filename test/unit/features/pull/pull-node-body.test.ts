import { describe, expect, it } from '@jest/globals';
import { pullNodeBody } from '../../../../lib/features/pull/pull-node-body';

describe('pullNodeBody', () => {
  it("sends the model under Ollama's field and always streams", () => {
    expect(pullNodeBody({ name: ' llama3 ', stream: false }, 'llama3')).toEqual({ model: 'llama3', stream: true });
  });

  it("drops the router's own fields and forwards the rest", () => {
    const body = {
      model: 'qwen3:8b',
      node_id: 'gpu1',
      metadata: { tags: ['a'] },
      user: 'u',
      fallback_models: ['x'],
      insecure: true,
      future_field: { kept: 1 },
    };

    expect(pullNodeBody(body, 'qwen3:8b')).toEqual({
      model: 'qwen3:8b',
      insecure: true,
      future_field: { kept: 1 },
      stream: true,
    });
  });

  it('leaves out fields sent as null', () => {
    expect(pullNodeBody({ insecure: null }, 'm')).toEqual({ model: 'm', stream: true });
  });
});
