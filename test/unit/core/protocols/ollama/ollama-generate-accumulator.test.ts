import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../../lib/core/errors';
import { createOllamaGenerateAccumulator } from '../../../../../lib/core/protocols/ollama/ollama-generate-accumulator';
import { parseOllamaGenerateLine } from '../../../../../lib/core/protocols/ollama/parse-ollama-line';
import { createNdjsonDecoder } from '../../../../../lib/core/stream/ndjson-decoder';
import type { OllamaGenerateChunk } from '../../../../../lib/core/wire/ollama';
import { readOllamaFixture } from '../../../../fixtures/ollama/read-fixture';

function generateChunks(): OllamaGenerateChunk[] {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  return [...decoder.push(readOllamaFixture('generate-thinking')), ...decoder.end()].map((line) => {
    const parsed = parseOllamaGenerateLine(line);
    if (!parsed.ok) throw parsed.error;
    return parsed.chunk;
  });
}

describe('createOllamaGenerateAccumulator', () => {
  it('joins response and thinking and keeps the final context and metrics', () => {
    const accumulator = createOllamaGenerateAccumulator();
    for (const chunk of generateChunks()) accumulator.push(chunk);

    expect(accumulator.end()).toEqual({
      model: 'qwen3:8b',
      created_at: '2025-11-20T09:14:03.609365Z',
      response: 'Blue.',
      thinking: 'Short answer.',
      done: true,
      done_reason: 'stop',
      context: [151644, 872, 198, 3838, 1894, 374, 279, 12884, 30, 151645],
      total_duration: 402118000,
      load_duration: 18220000,
      prompt_eval_count: 14,
      prompt_eval_duration: 51220000,
      eval_count: 5,
      eval_duration: 318004000,
    });
  });

  it('throws an UpstreamError when the stream ended without its final line', () => {
    const accumulator = createOllamaGenerateAccumulator();
    for (const chunk of generateChunks().slice(0, -1)) accumulator.push(chunk);

    expect(() => accumulator.end()).toThrow(UpstreamError);
  });
});
