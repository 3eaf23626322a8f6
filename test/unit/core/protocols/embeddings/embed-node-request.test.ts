import { describe, expect, it } from '@jest/globals';
import {
  forwardedEmbedFields,
  ollamaEmbedNodeRequest,
  sidecarEmbedRequest,
} from '../../../../../lib/core/protocols/embeddings/embed-node-request';

describe('forwardedEmbedFields', () => {
  it("keeps Ollama's fields and unknown ones, drops the router's own and what the route consumed", () => {
    const body = {
      model: 'nomic-embed-text',
      input: ['a'],
      prompt: 'a',
      encoding_format: 'base64',
      fallback_models: ['mxbai-embed-large'],
      metadata: { tags: ['rag'] },
      user: 'ada',
      dimensions: 256,
      truncate: true,
      keep_alive: '10m',
      options: { num_ctx: 2048 },
      newer_field: { x: 1 },
      absent: undefined,
    };

    const forwarded = forwardedEmbedFields(body);

    expect(forwarded).toEqual({
      dimensions: 256,
      truncate: true,
      keep_alive: '10m',
      options: { num_ctx: 2048 },
      newer_field: { x: 1 },
    });
    expect(Object.keys(forwarded)).not.toContain('absent');
    expect(body.user).toBe('ada');
  });
});

describe('ollamaEmbedNodeRequest', () => {
  it("names the node's model and carries the truncated texts as input", () => {
    expect(ollamaEmbedNodeRequest({ dimensions: 256 }, 'nomic-embed-text:latest', ['a', 'b'])).toEqual({
      dimensions: 256,
      model: 'nomic-embed-text:latest',
      input: ['a', 'b'],
    });
  });
});

describe('sidecarEmbedRequest', () => {
  it('sends the model and the texts only', () => {
    expect(sidecarEmbedRequest('bge-small-en-v1.5', ['a'])).toEqual({ model: 'bge-small-en-v1.5', input: ['a'] });
  });
});
