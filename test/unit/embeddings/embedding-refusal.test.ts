import { describe, expect, it } from '@jest/globals';
import { embeddingRefusal } from '../../../lib/embeddings/embedding-refusal';

const answer = (status: number, body: string) => ({ status, body: Buffer.from(body) });

describe('embeddingRefusal', () => {
  it("keeps an Ollama node's error and status", () => {
    const error = embeddingRefusal(answer(400, '{"error":"the input length exceeds the context length"}'));

    expect(error.status).toBe(400);
    expect(error.message).toBe('the input length exceeds the context length');
  });

  it("keeps a sidecar's FastAPI detail and status", () => {
    const error = embeddingRefusal(answer(404, '{"detail":"Unknown model: bge-large"}'));

    expect(error.status).toBe(404);
    expect(error.message).toBe('Unknown model: bge-large');
    expect(error.retryable).toBe(false);
  });

  it('says the status when the body has no text to keep', () => {
    expect(embeddingRefusal(answer(422, '{"detail":[{"loc":["body","input"]}]}')).message).toBe(
      'the node answered 422',
    );
    expect(embeddingRefusal(answer(400, 'not json')).message).toBe('the node answered 400');
  });
});
