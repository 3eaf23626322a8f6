import { describe, expect, it } from '@jest/globals';
import { toOllamaEmbed, toOllamaLegacyEmbedding } from '../../../../../lib/core/protocols/embeddings/to-ollama-embed';

describe('toOllamaEmbed', () => {
  const context = { model: 'nomic-embed-text:latest', elapsedMs: 12.5, promptTokens: 9 };

  it("keeps the node's metrics when it sent them", () => {
    const reply = toOllamaEmbed(
      { embeddings: [[0.1, 0.2]], promptEvalCount: 4, totalDuration: 5_000_000, loadDuration: 0 },
      context,
    );

    expect(reply).toEqual({
      model: 'nomic-embed-text:latest',
      embeddings: [[0.1, 0.2]],
      total_duration: 5_000_000,
      load_duration: 0,
      prompt_eval_count: 4,
    });
  });

  it("answers the router's wall time and token count for a node that sends no metrics", () => {
    const reply = toOllamaEmbed({ embeddings: [[1], [2]] }, context);

    expect(reply).toEqual({
      model: 'nomic-embed-text:latest',
      embeddings: [[1], [2]],
      total_duration: 12_500_000,
      load_duration: 0,
      prompt_eval_count: 9,
    });
  });
});

describe('toOllamaLegacyEmbedding', () => {
  it('answers the one vector', () => {
    expect(toOllamaLegacyEmbedding({ embeddings: [[0.5, -0.5]] })).toEqual({ embedding: [0.5, -0.5] });
  });

  it('answers an empty vector when there is none to answer', () => {
    expect(toOllamaLegacyEmbedding({ embeddings: [] })).toEqual({ embedding: [] });
  });
});
