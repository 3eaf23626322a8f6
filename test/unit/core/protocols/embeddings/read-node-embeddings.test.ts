import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../../lib/core/errors';
import { readNodeEmbeddings } from '../../../../../lib/core/protocols/embeddings/read-node-embeddings';

const OLLAMA_REPLY = JSON.stringify({
  model: 'nomic-embed-text:latest',
  embeddings: [
    [0.1, -0.2, 0.3],
    [0.4, 0.5, -0.6],
  ],
  total_duration: 14_143_917,
  load_duration: 1_019_500,
  prompt_eval_count: 8,
});

/** The 502 `readNodeEmbeddings` throws (fails the test when it throws nothing or something else). */
function upstreamError(body: string, count: number, dimensions?: number): UpstreamError {
  try {
    readNodeEmbeddings(body, { count, ...(dimensions !== undefined ? { dimensions } : {}) });
  } catch (error) {
    if (error instanceof UpstreamError) return error;
    throw error;
  }
  throw new Error('expected a 502');
}

describe('readNodeEmbeddings', () => {
  it("reads Ollama's reply with its metrics", () => {
    const reply = readNodeEmbeddings(OLLAMA_REPLY, { count: 2 });

    expect(reply).toEqual({
      embeddings: [
        [0.1, -0.2, 0.3],
        [0.4, 0.5, -0.6],
      ],
      promptEvalCount: 8,
      totalDuration: 14_143_917,
      loadDuration: 1_019_500,
    });
  });

  it("reads a sidecar's reply, which has no metrics", () => {
    const reply = readNodeEmbeddings(JSON.stringify({ model: 'bge', embeddings: [[1, 0]], dimensions: 2 }), {
      count: 1,
    });

    expect(reply).toEqual({ embeddings: [[1, 0]] });
  });

  it('accepts vectors of the width the client asked for', () => {
    expect(readNodeEmbeddings(OLLAMA_REPLY, { count: 2, dimensions: 3 }).embeddings).toHaveLength(2);
  });

  it('accepts no vectors for no inputs', () => {
    expect(readNodeEmbeddings('{"model":"m","embeddings":[]}', { count: 0 })).toEqual({ embeddings: [] });
  });

  it('ignores metrics that are not non-negative integers', () => {
    const reply = readNodeEmbeddings(
      JSON.stringify({ embeddings: [[1]], prompt_eval_count: '8', total_duration: -1, load_duration: 1.5 }),
      { count: 1 },
    );

    expect(reply).toEqual({ embeddings: [[1]] });
  });

  it.each([
    ['fewer vectors than inputs', OLLAMA_REPLY, 3, undefined, 'the node returned 2 vectors for 3 inputs'],
    ['more vectors than inputs', OLLAMA_REPLY, 1, undefined, 'the node returned 2 vectors for 1 inputs'],
    ['an ignored dimensions', OLLAMA_REPLY, 2, 2, 'the node ignored dimensions 2: its vectors have 3'],
    ['a body that is not JSON', '<html>oops', 1, undefined, "the node's embedding reply is not JSON"],
    ['no embeddings', '{"embedding":[1,2]}', 1, undefined, "the node's embedding reply has no embeddings array"],
    ['a JSON array', '[[1,2]]', 1, undefined, "the node's embedding reply has no embeddings array"],
    ['null', 'null', 1, undefined, "the node's embedding reply has no embeddings array"],
    ['a vector with a string', '{"embeddings":[[1,"2"]]}', 1, undefined, "the node's vector 0 is not"],
    ['an empty vector', '{"embeddings":[[1],[]]}', 2, undefined, "the node's vector 1 is not"],
    ['ragged vectors', '{"embeddings":[[1,2],[3]]}', 2, undefined, 'different widths (2 and 1)'],
  ])('answers 502 for %s', (_case, body, count, dimensions, message) => {
    const error = upstreamError(body, count, dimensions);

    expect(error.status).toBe(502);
    expect(error.message).toContain(message);
  });
});
