import { describe, expect, it } from '@jest/globals';
import { modelResolutionHeaders } from '../../../lib/chat/fleet-headers';

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
