import { describe, expect, it } from '@jest/globals';
import { parseResponsesRequest, responsesStreamRequested } from '../../../../lib/core/wire/responses';

describe('parseResponsesRequest', () => {
  it('accepts a full request as openai-node and Codex send it, unchanged', () => {
    const body = {
      model: 'gpt-oss:20b',
      instructions: 'You are a coding agent.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this picture?' },
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' },
          ],
        },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'Look first.' }],
          encrypted_content: null,
        },
        {
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'A cat.', annotations: [] }],
        },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: '{"cmd":["ls"]}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
        { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'Done' }] },
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [{ type: 'function', name: 'view', parameters: null, strict: false }],
        },
      ],
      tools: [
        {
          type: 'function',
          name: 'shell',
          description: 'Runs a command',
          parameters: { type: 'object' },
          strict: false,
        },
        { type: 'custom', name: 'apply_patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
        { type: 'web_search' },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      text: {
        format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        verbosity: 'low',
      },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'k',
      max_output_tokens: 512,
      metadata: { tags: ['nightly'] },
    };

    expect(parseResponsesRequest(body)).toEqual({ ok: true, value: body });
  });

  it('accepts a string input', () => {
    expect(parseResponsesRequest({ model: 'm', input: 'hi' })).toEqual({
      ok: true,
      value: { model: 'm', input: 'hi' },
    });
  });

  it.each([
    ['a call without its call_id', [{ type: 'function_call', name: 'f', arguments: '{}' }], 'input.0.call_id'],
    ['a message with an unknown role', [{ role: 'tool', content: 'x' }], 'input.0.role'],
    [
      'a message whose content has an unknown part',
      [{ role: 'user', content: [{ type: 'video' }] }],
      'input.0.content',
    ],
    ['an output that is a number', [{ type: 'function_call_output', call_id: 'c', output: 3 }], 'input.0.output'],
  ])('names the field of %s', (_case, input, field) => {
    expect(parseResponsesRequest({ model: 'm', input })).toMatchObject({ ok: false, field });
  });

  it('says which item types it takes when an item has another', () => {
    expect(parseResponsesRequest({ model: 'm', input: [{ type: 'computer_call_output', call_id: 'c' }] })).toEqual({
      ok: false,
      field: 'input.0.type',
      message:
        'unsupported input item type; expected one of message, function_call, function_call_output, custom_tool_call, custom_tool_call_output, local_shell_call, reasoning, additional_tools',
    });
  });

  it('says what a tool may be when its type is unknown, and names the field of a bad function tool', () => {
    expect(parseResponsesRequest({ model: 'm', tools: [{ type: 'teleport' }] })).toEqual({
      ok: false,
      field: 'tools.0.type',
      message: 'expected a function, custom, namespace or local_shell tool (or a hosted tool type)',
    });
    expect(parseResponsesRequest({ model: 'm', tools: [{ type: 'function' }] })).toMatchObject({
      ok: false,
      field: 'tools.0.name',
    });
  });

  it('rejects an input that is neither a string nor a list, and a missing model', () => {
    expect(parseResponsesRequest({ model: 'm', input: { role: 'user' } })).toMatchObject({ ok: false, field: 'input' });
    expect(parseResponsesRequest({ input: 'hi' })).toMatchObject({ ok: false, field: 'model' });
  });
});

describe('responsesStreamRequested', () => {
  it.each([
    [true, true],
    [false, false],
    [undefined, false],
    [null, false],
  ])('streams for stream: %j → %j', (stream, expected) => {
    expect(responsesStreamRequested({ stream })).toBe(expected);
  });
});
