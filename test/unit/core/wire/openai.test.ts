import { describe, expect, it } from '@jest/globals';
import { RouterError } from '../../../../lib/core/errors';
import { errorBody } from '../../../../lib/core/wire/error-body';
import { openAIErrorBodySchema, parseOpenAIChatRequest } from '../../../../lib/core/wire/openai';

describe('parseOpenAIChatRequest', () => {
  it('accepts a full request as openai-node sends it', () => {
    const body = {
      model: 'qwen3:8b',
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is it?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'auto' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      ],
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
      temperature: 0,
      stop: null,
      max_completion_tokens: 512,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' }, strict: true } },
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      metadata: { tags: 'nightly' },
      prompt_cache_key: 'k',
    };

    expect(parseOpenAIChatRequest(body)).toEqual({ ok: true, value: body });
  });

  it('says what a message content may be when it is wrong', () => {
    expect(parseOpenAIChatRequest({ model: 'm', messages: [{ role: 'user', content: [{ type: 'video' }] }] })).toEqual({
      ok: false,
      field: 'messages.0.content',
      message: 'expected a string or an array of text, image_url parts',
    });
  });
});

describe('openAIErrorBodySchema', () => {
  it("describes the renderer's OpenAI error body", () => {
    expect(openAIErrorBodySchema.safeParse(errorBody('openai', new RouterError(503, 'busy'))).success).toBe(true);
  });
});
