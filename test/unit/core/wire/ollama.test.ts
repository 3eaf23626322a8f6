import { describe, expect, it } from '@jest/globals';
import {
  ollamaStreamRequested,
  parseOllamaChatChunk,
  parseOllamaClientChatRequest,
  parseOllamaClientGenerateRequest,
  stripRouterFields,
} from '../../../../lib/core/wire/ollama';

describe('stripRouterFields', () => {
  it('removes metadata, fallback_models and user and nothing else', () => {
    const body = {
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      options: { num_predict: 64 },
      keep_alive: 0,
      think: false,
      future_field: null,
      metadata: { tags: ['batch'] },
      fallback_models: ['llama3.2:3b'],
      user: 'alice',
    };

    expect(stripRouterFields(body)).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      options: { num_predict: 64 },
      keep_alive: 0,
      think: false,
      future_field: null,
    });
  });

  it("leaves the client's body as it was", () => {
    const body = { model: 'm', user: 'alice' };

    stripRouterFields(body);

    expect(body).toEqual({ model: 'm', user: 'alice' });
  });
});

describe('ollamaStreamRequested', () => {
  it.each([
    [undefined, true],
    [null, true],
    [true, true],
    [false, false],
  ])('streams when stream is %p: %p', (stream, expected) => {
    expect(ollamaStreamRequested({ stream })).toBe(expected);
  });
});

describe('parseOllamaClientChatRequest', () => {
  it('accepts what ollama-js sends and keeps unknown fields', () => {
    const body = {
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'look', images: ['iVBORw0KGgo='] }],
      stream: false,
      format: { type: 'object' },
      keep_alive: '5m',
      options: { temperature: 0, num_ctx: 4096, mirostat: 0 },
      think: 'high',
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      truncate: true,
      metadata: { tags: ['a'] },
    };
    const history = {
      ...body,
      messages: [...body.messages, { role: 'assistant', content: '', tool_calls: [{ function: { arguments: {} } }] }],
    };

    expect(parseOllamaClientChatRequest(body)).toEqual({ ok: true, value: body });
    expect(parseOllamaClientChatRequest(history)).toEqual({ ok: true, value: history });
  });

  it.each([
    ['model', { messages: [] }],
    ['model', { model: '' }],
    ['messages.0.role', { model: 'm', messages: [{ content: 'hi' }] }],
    ['options.num_predict', { model: 'm', options: { num_predict: 'lots' } }],
    ['fallback_models', { model: 'm', fallback_models: 'llama3.2:3b' }],
  ])('names %s when it is wrong', (field, body) => {
    expect(parseOllamaClientChatRequest(body)).toMatchObject({ ok: false, field });
  });
});

describe('parseOllamaClientGenerateRequest', () => {
  it('accepts a generate body with images, context and raw', () => {
    const body = { model: 'llava:7b', prompt: 'describe', images: ['AAAA'], context: [1, 2, 3], raw: false };

    expect(parseOllamaClientGenerateRequest(body)).toEqual({ ok: true, value: body });
  });

  it('names a prompt that is not a string', () => {
    expect(parseOllamaClientGenerateRequest({ model: 'm', prompt: ['a'] })).toMatchObject({
      ok: false,
      field: 'prompt',
    });
  });
});

describe('parseOllamaChatChunk', () => {
  it('accepts a final line with extra metrics and a cached-token count', () => {
    const line = {
      model: 'm',
      created_at: '2025-11-20T09:14:03.381008Z',
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'stop',
      total_duration: 1,
      prompt_eval_count: 5,
      eval_count: 2,
      prompt_cache_count: 0,
      remote_model: 'x',
    };

    expect(parseOllamaChatChunk(line)).toEqual({ ok: true, value: line });
  });

  it('requires a name on a tool call', () => {
    const line = { message: { role: 'assistant', content: '', tool_calls: [{ function: { arguments: {} } }] } };

    expect(parseOllamaChatChunk(line)).toMatchObject({ ok: false, field: 'message.tool_calls.0.function.name' });
  });
});
