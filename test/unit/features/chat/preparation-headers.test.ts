import { describe, expect, it } from '@jest/globals';
import { contextLayerHeaders, modelResolutionHeaders } from '../../../../lib/features/chat/preparation-headers';

describe('modelResolutionHeaders', () => {
  it("names the client's model id and how it was resolved", () => {
    expect(modelResolutionHeaders('claude-haiku-4-5', { model: 'llama3.2:3b', via: 'auto', tier: 'fast' })).toEqual({
      'x-fleet-requested-model': 'claude-haiku-4-5',
      'x-fleet-model-resolution': 'auto',
    });
  });

  it('percent-encodes an id a header cannot carry', () => {
    const headers = modelResolutionHeaders('modèle\r\nx-evil: 1', { model: 'qwen3:8b', via: 'default' });

    expect(headers['x-fleet-requested-model']).toBe('mod%C3%A8le%0D%0Ax-evil%3A%201');
  });
});

describe('contextLayerHeaders', () => {
  it('says how many tool results the layers cleared and summarised', () => {
    expect(contextLayerHeaders({ cleared: 4, summarised: 2 })).toEqual({
      'x-fleet-context-cleared': '4',
      'x-fleet-context-summarised': '2',
    });
  });

  it('adds nothing when the layers changed nothing', () => {
    expect(contextLayerHeaders({ cleared: 0, summarised: 0 })).toEqual({});
  });
});
