import { describe, expect, it } from '@jest/globals';
import { RouterError } from '../../../../lib/core/errors';
import {
  anthropicErrorBodySchema,
  parseAnthropicCountTokensRequest,
  parseAnthropicMessagesRequest,
} from '../../../../lib/core/wire/anthropic';
import { errorBody } from '../../../../lib/core/wire/error-body';

const USER_HI = [{ role: 'user', content: 'hi' }];

describe('parseAnthropicMessagesRequest', () => {
  it('accepts a full request as @anthropic-ai/sdk sends it', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 32000,
      system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is it?' },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' }, title: 'Notes' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Look first.', signature: '' },
            { type: 'tool_use', id: 'toolu_1', name: 'look', input: { at: 'a.png' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a cat' }] }],
        },
      ],
      stop_sequences: ['END'],
      stream: true,
      temperature: 1,
      top_k: 40,
      tools: [{ name: 'look', description: 'Look', input_schema: { type: 'object' }, strict: true }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 16000 },
      output_config: { effort: 'high' },
      metadata: { user_id: 'user_abc', tags: ['batch'] },
      fallback_models: ['llama3.2:3b'],
      service_tier: 'auto',
      context_management: { edits: [] },
    };

    expect(parseAnthropicMessagesRequest(body)).toEqual({ ok: true, value: body });
  });

  it('keeps blocks of unknown types and unknown fields at every level', () => {
    const body = {
      model: 'm',
      max_tokens: 1,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'search_result', source: 's', title: 't', content: [{ type: 'text', text: 'x' }] },
            { type: 'text', text: 'hi', future: 1 },
          ],
        },
      ],
      future_top: true,
    };

    expect(parseAnthropicMessagesRequest(body)).toEqual({ ok: true, value: body });
  });

  it('requires max_tokens, as Anthropic does', () => {
    expect(parseAnthropicMessagesRequest({ model: 'm', messages: USER_HI })).toEqual({
      ok: false,
      field: 'max_tokens',
      message: 'max_tokens is required',
    });
  });

  it.each([
    ['model', { max_tokens: 1, messages: USER_HI }],
    ['max_tokens', { model: 'm', max_tokens: 0, messages: USER_HI }],
    ['max_tokens', { model: 'm', max_tokens: 1.5, messages: USER_HI }],
    ['messages', { model: 'm', max_tokens: 1, messages: [] }],
    ['messages.0.role', { model: 'm', max_tokens: 1, messages: [{ role: 'tool', content: 'x' }] }],
    ['messages.0.content', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 42 }] }],
    ['system', { model: 'm', max_tokens: 1, messages: USER_HI, system: [{ type: 'image' }] }],
    ['tool_choice.type', { model: 'm', max_tokens: 1, messages: USER_HI, tool_choice: { type: 'required' } }],
    ['tool_choice.name', { model: 'm', max_tokens: 1, messages: USER_HI, tool_choice: { type: 'tool' } }],
    ['thinking.budget_tokens', { model: 'm', max_tokens: 1, messages: USER_HI, thinking: { type: 'enabled' } }],
    ['output_config.effort', { model: 'm', max_tokens: 1, messages: USER_HI, output_config: { effort: 'extreme' } }],
    ['tools.0.name', { model: 'm', max_tokens: 1, messages: USER_HI, tools: [{ input_schema: {} }] }],
  ])('names %s when it is wrong', (field, body) => {
    expect(parseAnthropicMessagesRequest(body)).toMatchObject({ ok: false, field });
  });

  it.each([
    ['a string nor an array', 42, 'expected a string or an array of content blocks'],
    ['a text block without text', [{ type: 'text' }], '0.text: Invalid input: expected string, received undefined'],
    [
      'an image with an unknown source type',
      [
        { type: 'text', text: 'x' },
        { type: 'image', source: { type: 'ftp', url: 'x' } },
      ],
      "1.source.type: Invalid discriminator value. Expected 'base64' | 'url' | 'file'",
    ],
    [
      'a tool result with a bad nested block',
      [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'base64' } }] }],
      '0.content.0.source.media_type: Invalid input: expected string, received undefined',
    ],
    [
      'a block of a known type at the wrong level',
      [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'thinking', thinking: 'x' }] }],
      "0.content.0.type: Invalid discriminator value. Expected 'text' | 'image' | 'document'",
    ],
    ['a block that is not an object', ['hi'], '0: expected a content block'],
  ])('says where content is wrong when it is %s', (_case, content, message) => {
    const parsed = parseAnthropicMessagesRequest({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content }] });

    expect(parsed).toEqual({ ok: false, field: 'messages.0.content', message });
  });
});

describe('parseAnthropicCountTokensRequest', () => {
  it('accepts a request without max_tokens', () => {
    const body = { model: 'm', messages: USER_HI, tools: [{ name: 'f', input_schema: { type: 'object' } }] };

    expect(parseAnthropicCountTokensRequest(body)).toEqual({ ok: true, value: body });
  });
});

describe('anthropicErrorBodySchema', () => {
  it("describes the renderer's Anthropic error body", () => {
    expect(anthropicErrorBodySchema.safeParse(errorBody('anthropic', new RouterError(503, 'busy'))).success).toBe(true);
  });
});
