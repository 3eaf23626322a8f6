import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  ollamaChatChunkSchema,
  ollamaClientChatRequestSchema,
  ollamaClientGenerateRequestSchema,
  ollamaGenerateChunkSchema,
  parseOllamaChatChunk,
  parseOllamaClientChatRequest,
} from '../../../../lib/core/wire/ollama';
import {
  isPlainOllamaChatChunk,
  isPlainOllamaChatRequest,
  isPlainOllamaGenerateChunk,
  isPlainOllamaGenerateRequest,
} from '../../../../lib/core/wire/ollama-shape';
import type * as z from '../../../../lib/core/wire/zod';

// Any JSON-like value, and the odd numbers JSON cannot carry but a caller could hand over.
const junk = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, 1.5),
  fc.boolean(),
  fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.integer()), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 2 }),
);
const either = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: junk });
const text = either(fc.oneof(fc.string({ maxLength: 4 }), fc.constant(null)));
const count = either(fc.oneof(fc.nat(), fc.constant(null)));
const strings = either(fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }));
const record = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) =>
  fc.record({ ...fields, extra: junk }, { requiredKeys: [] });

const common = {
  model: either(fc.oneof(fc.constant('qwen3:8b'), fc.constant(''))),
  stream: either(fc.boolean()),
  format: either(fc.oneof(fc.constant('json'), fc.constant({ type: 'object' }))),
  keep_alive: either(fc.oneof(fc.constant('5m'), fc.integer())),
  options: either(record({ num_predict: count, num_ctx: count, temperature: either(fc.double({ noNaN: true })) })),
  think: either(fc.oneof(fc.boolean(), fc.constant('high'))),
  fallback_models: strings,
  metadata: either(record({ tags: either(fc.oneof(fc.constant('batch'), fc.array(fc.string({ maxLength: 3 })))) })),
  user: text,
};
const chatRequest = record({
  ...common,
  messages: either(fc.array(either(record({ role: either(fc.constant('user')), content: text, images: strings })))),
  tools: either(fc.array(either(record({ type: either(fc.constant('function')) })), { maxLength: 2 })),
});
const generateRequest = record({
  ...common,
  prompt: text,
  suffix: text,
  system: text,
  template: text,
  raw: either(fc.boolean()),
  images: strings,
  context: either(fc.array(either(fc.integer()), { maxLength: 2 })),
});
const metrics = {
  done: either(fc.boolean()),
  done_reason: text,
  total_duration: count,
  load_duration: count,
  prompt_eval_count: count,
  prompt_eval_duration: count,
  eval_count: count,
  eval_duration: count,
  prompt_cache_count: count,
  logprobs: either(fc.array(junk, { maxLength: 2 })),
};
const toolCall = record({
  id: text,
  function: either(record({ index: count, name: either(fc.constant('get_weather')), arguments: junk })),
});
const chatChunk = record({
  model: text,
  created_at: text,
  message: either(
    record({
      role: text,
      content: text,
      thinking: text,
      tool_calls: either(fc.array(either(toolCall))),
      images: strings,
    }),
  ),
  ...metrics,
});
const generateChunk = record({
  model: text,
  created_at: text,
  response: text,
  thinking: text,
  context: either(fc.array(either(fc.integer()), { maxLength: 2 })),
  ...metrics,
});

const cases: [string, (value: unknown) => boolean, () => z.ZodMiniType, fc.Arbitrary<unknown>][] = [
  ['chat request', isPlainOllamaChatRequest, ollamaClientChatRequestSchema, chatRequest],
  ['generate request', isPlainOllamaGenerateRequest, ollamaClientGenerateRequestSchema, generateRequest],
  ['chat line', isPlainOllamaChatChunk, ollamaChatChunkSchema, chatChunk],
  ['generate line', isPlainOllamaGenerateChunk, ollamaGenerateChunkSchema, generateChunk],
];

describe.each(cases)('the hand check of an Ollama %s', (_name, check, schema, values) => {
  it('accepts only what the zod schema accepts, and exactly as zod would return it', () => {
    let accepted = 0;
    let runs = 0;
    fc.assert(
      fc.property(values, (value) => {
        runs += 1;
        if (!check(value)) return;
        accepted += 1;
        const parsed = schema().safeParse(value);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(value);
      }),
      { numRuns: 3000 },
    );
    // Not a check that turns everything away (then zod would run on every request, as before).
    expect(accepted).toBeGreaterThan(runs / 50);
  });

  it('takes a value the schema accepts with all its fields set', () => {
    const full = fc.sample(values, { numRuns: 2000, seed: 7 }).filter((value) => schema().safeParse(value).success);
    expect(full.length).toBeGreaterThan(0);
    expect(full.filter(check).length / full.length).toBeGreaterThan(0.5);
  });
});

describe('a value the hand check turns away', () => {
  it('still gets zod: its words and the bad field', () => {
    const result = parseOllamaChatChunk({ model: 'm', message: { role: 'assistant', content: 7 }, done: true });

    expect(result).toEqual({
      ok: false,
      field: 'message.content',
      message: 'Invalid input: expected string, received number',
    });
  });

  it('an empty model is still refused with its own message', () => {
    const result = parseOllamaClientChatRequest({ model: '', messages: [] });

    expect(result).toMatchObject({ ok: false, field: 'model', message: 'model is required' });
  });
});

describe('a value the hand check takes', () => {
  it('is the value itself, not a copy', () => {
    const body = { model: 'qwen3:8b', messages: [{ role: 'user', content: 'hi' }], future_field: [1] };

    const result = parseOllamaClientChatRequest(body);

    expect(result.ok && result.value).toBe(body);
  });
});
