import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../../lib/core/errors';
import {
  type FromResponsesRequestOptions,
  fromResponsesRequest,
  responsesImageUrlsToFetch,
} from '../../../../../lib/core/protocols/responses/from-responses-request';
import { responsesToolIndex } from '../../../../../lib/core/protocols/responses/from-responses-tools';
import { toResponsesResponse } from '../../../../../lib/core/protocols/responses/to-responses-response';
import type { OllamaChatRequest } from '../../../../../lib/core/wire/ollama';
import { responsesContext, responsesRequest } from '../../../../helpers/replay';
import { wholeReply } from '../node-replies';

const NO_IMAGES: FromResponsesRequestOptions = { images: new Map() };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function translate(body: Record<string, unknown>, options = NO_IMAGES): OllamaChatRequest {
  return fromResponsesRequest(responsesRequest(body), options);
}

function badRequest(body: Record<string, unknown>, options = NO_IMAGES): BadRequestError {
  try {
    translate(body, options);
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
  throw new Error('expected a BadRequestError');
}

const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: true,
};
const time = { type: 'function', name: 'get_time', parameters: null, strict: false };
const patch = { type: 'custom', name: 'apply_patch', description: 'Edits files' };

describe('fromResponsesRequest', () => {
  it('translates a string input to one user message, with no options of its own', () => {
    expect(translate({ input: 'hi' })).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
    });
  });

  it('puts instructions first, as a system message, and keeps the stream flag', () => {
    expect(translate({ instructions: 'Be brief.', input: 'hi', stream: true })).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
    });
  });

  it('sends only the instructions when there is no input', () => {
    expect(translate({ instructions: 'Say hello.' }).messages).toEqual([{ role: 'system', content: 'Say hello.' }]);
  });

  describe('options', () => {
    it('maps temperature, top_p and max_output_tokens into options, and only those sent', () => {
      expect(translate({ input: 'hi', temperature: 0, top_p: 0.9, max_output_tokens: 256 }).options).toEqual({
        temperature: 0,
        top_p: 0.9,
        num_predict: 256,
      });
      expect(translate({ input: 'hi', temperature: null, top_p: 0.5 }).options).toEqual({ top_p: 0.5 });
    });

    it("keeps Ollama's own options, max_output_tokens winning over num_predict", () => {
      expect(
        translate({ input: 'hi', max_output_tokens: 100, options: { num_predict: 300, num_ctx: 8192 } }).options,
      ).toEqual({
        num_predict: 100,
        num_ctx: 8192,
      });
      expect(translate({ input: 'hi', options: { num_predict: 300 } }).options).toEqual({ num_predict: 300 });
    });
  });

  describe('text.format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

    it.each([
      ['json_object', { type: 'json_object' }, 'json'],
      ['json_schema', { type: 'json_schema', name: 'answer', schema, strict: true }, schema],
      ['json_schema without a schema', { type: 'json_schema', name: 'answer' }, 'json'],
      ['text', { type: 'text' }, undefined],
    ])('maps %s to format', (_case, format, expected) => {
      expect(translate({ input: 'hi', text: { format } }).format).toEqual(expected);
    });

    it("uses Ollama's format only when text.format is absent", () => {
      expect(translate({ input: 'hi', format: schema }).format).toEqual(schema);
      expect(translate({ input: 'hi', format: schema, text: { format: { type: 'json_object' } } }).format).toBe('json');
      expect(translate({ input: 'hi', format: 'json', text: { verbosity: 'low' } }).format).toBe('json');
    });
  });

  describe('thinking', () => {
    it.each([
      ['none', false],
      ['minimal', 'low'],
      ['low', 'low'],
      ['medium', 'medium'],
      ['high', 'high'],
      ['xhigh', 'high'],
      ['max', 'max'],
    ])('maps reasoning.effort %s to think %j', (effort, think) => {
      expect(translate({ input: 'hi', reasoning: { effort } }).think).toBe(think);
    });

    it("lets Ollama's think win and sends none to a model known not to think", () => {
      expect(translate({ input: 'hi', reasoning: { effort: 'high' }, think: false }).think).toBe(false);
      const options = { images: new Map(), thinking: { capable: false } };
      expect(translate({ input: 'hi', reasoning: { effort: 'high' } }, options)).not.toHaveProperty('think');
    });

    it.each([
      [300, 1324],
      [10, 1034],
      [-1, -1],
    ])('raises a thinking model budget of %i to %i', (budget, raised) => {
      const options = { images: new Map(), thinking: { capable: true } };

      expect(translate({ input: 'hi', max_output_tokens: budget }, options).options?.num_predict).toBe(raised);
    });

    it.each([
      ['reasoning.effort is none', { reasoning: { effort: 'none' } }, { capable: true }],
      ['the model does not think', {}, { capable: false }],
      ['the capability is unknown', {}, undefined],
    ])('keeps the budget when %s', (_case, fields, thinking) => {
      const options = thinking === undefined ? NO_IMAGES : { images: new Map(), thinking };

      expect(translate({ input: 'hi', max_output_tokens: 300, ...fields }, options).options?.num_predict).toBe(300);
    });
  });

  describe('tools', () => {
    it('nests function tools the chat way, forwarding every field', () => {
      expect(translate({ input: 'hi', tools: [weather, time] }).tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather',
            parameters: weather.parameters,
            strict: true,
          },
        },
        { type: 'function', function: { name: 'get_time', parameters: null, strict: false } },
      ]);
    });

    it('turns a custom tool into a function taking one string, with its grammar in the description', () => {
      const grammar = { ...patch, format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch"' } };

      expect(translate({ input: 'hi', tools: [patch] }).tools).toEqual([
        {
          type: 'function',
          function: {
            name: 'apply_patch',
            description: 'Edits files',
            parameters: {
              type: 'object',
              properties: { input: { type: 'string', description: 'The input, as free-form text.' } },
              required: ['input'],
            },
          },
        },
      ]);
      expect(translate({ input: 'hi', tools: [grammar] }).tools?.[0]?.function.parameters).toEqual({
        type: 'object',
        properties: {
          input: {
            type: 'string',
            description: 'The input, as text matching this lark grammar:\nstart: "*** Begin Patch"',
          },
        },
        required: ['input'],
      });
    });

    it('adds the tools of additional_tools items, and sends no message for them', () => {
      const translated = translate({
        tools: [weather],
        input: [
          { type: 'additional_tools', role: 'developer', tools: [time] },
          { role: 'user', content: 'hi' },
        ],
      });

      expect(translated.tools?.map((tool) => tool.function.name)).toEqual(['get_weather', 'get_time']);
      expect(translated.messages).toEqual([{ role: 'user', content: 'hi' }]);
    });

    it.each([
      ['auto', ['get_weather', 'get_time', 'apply_patch']],
      ['required', ['get_weather', 'get_time', 'apply_patch']],
      ['none', undefined],
      [{ type: 'function', name: 'get_time' }, ['get_time']],
      [{ type: 'custom', name: 'apply_patch' }, ['apply_patch']],
      [
        {
          type: 'allowed_tools',
          mode: 'auto',
          tools: [
            { type: 'custom', name: 'apply_patch' },
            { type: 'function', name: 'get_weather' },
          ],
        },
        ['apply_patch', 'get_weather'],
      ],
    ])('sends the tools tool_choice %j allows', (toolChoice, names) => {
      const tools = translate({ input: 'hi', tools: [weather, time, patch], tool_choice: toolChoice }).tools;

      expect(tools?.map((tool) => tool.function.name)).toEqual(names);
    });

    it('leaves out the hosted tools, wherever they are declared', () => {
      const translated = translate({
        tools: [weather, { type: 'web_search', external_web_access: false }],
        input: [
          { type: 'additional_tools', tools: [{ type: 'mcp' }] },
          { role: 'user', content: 'hi' },
        ],
      });

      expect(translated.tools?.map((tool) => tool.function.name)).toEqual(['get_weather']);
      expect(translate({ input: 'hi', tools: [{ type: 'file_search' }] }).tools).toBeUndefined();
    });

    it.each([
      ['a hosted tool_choice', { type: 'web_search_preview' }, 'tool_choice.type'],
      ['a function that is not there', { type: 'function', name: 'nope' }, 'tool_choice.name'],
      ['a custom tool named like a function', { type: 'custom', name: 'get_weather' }, 'tool_choice.name'],
      [
        'allowed_tools requiring only a hosted tool',
        { type: 'allowed_tools', mode: 'required', tools: [{ type: 'file_search' }] },
        'tool_choice.tools',
      ],
    ])('rejects %s naming the field', (_case, toolChoice, field) => {
      expect(badRequest({ input: 'hi', tools: [weather], tool_choice: toolChoice }).param).toBe(field);
    });

    it('rejects two tools with one name', () => {
      expect(badRequest({ input: 'hi', tools: [weather, { ...patch, name: 'get_weather' }] }).param).toBe(
        'tools.1.name',
      );
    });

    it('lists the custom tools, wherever they are declared', () => {
      const request = responsesRequest({
        tools: [weather, patch],
        input: [{ type: 'additional_tools', tools: [{ ...patch, name: 'exec' }] }],
      });

      const custom = [...responsesToolIndex(request)]
        .filter(([, target]) => target.kind === 'custom')
        .map(([name]) => name);

      expect(custom).toEqual(['apply_patch', 'exec']);
    });
  });

  describe('other fields', () => {
    it('forwards fields it does not translate and strips the ones the router reads', () => {
      const translated = translate({
        input: 'hi',
        store: false,
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
        parallel_tool_calls: false,
        service_tier: 'auto',
        keep_alive: '10m',
        x_experimental: { level: 2 },
        background: false,
        stream_options: { include_obfuscation: false },
        previous_response_id: 'resp_earlier',
        metadata: { tags: ['batch'] },
        fallback_models: ['llama3.2:3b'],
        user: 'alice',
      });

      expect(translated).toEqual({
        model: 'qwen3:8b',
        messages: [{ role: 'user', content: 'hi' }],
        stream: false,
        store: false,
        include: ['reasoning.encrypted_content'],
        truncation: 'auto',
        parallel_tool_calls: false,
        service_tier: 'auto',
        keep_alive: '10m',
        x_experimental: { level: 2 },
      });
    });

    it.each([
      ['conversation', { conversation: 'conv_1' }],
      ['prompt', { prompt: { id: 'pmpt_1' } }],
      ['background', { background: true }],
    ])('rejects %s, state only OpenAI keeps, with a 400 naming it', (field, fields) => {
      const error = badRequest({ input: 'hi', ...fields });

      expect(error.status).toBe(400);
      expect(error.param).toBe(field);
    });
  });

  describe('input items', () => {
    it('keeps message roles (developer → system) and joins text parts with a line break', () => {
      const translated = translate({
        input: [
          { role: 'system', content: 'Be brief.' },
          {
            type: 'message',
            role: 'developer',
            content: [
              { type: 'input_text', text: 'Answer in French.' },
              { type: 'input_text', text: 'Use metric units.' },
            ],
          },
          { role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [
              { type: 'output_text', text: 'Partly.', annotations: [] },
              { type: 'refusal', refusal: 'Not the rest.' },
            ],
          },
        ],
      });

      expect(translated.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Answer in French.\nUse metric units.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Partly.\nNot the rest.' },
      ]);
    });

    it('makes consecutive calls one assistant message, joined to the text just before, with results named after them', () => {
      const translated = translate({
        input: [
          { role: 'user', content: 'Weather in Tokyo and the time?' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
          { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'get_time', arguments: '' },
          { type: 'function_call_output', call_id: 'call_1', output: '{"temp_c":21}' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '09:14' }] },
          { type: 'function_call_output', call_id: 'call_unknown', output: 'orphan' },
          { type: 'function_call', call_id: 'call_3', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
      });

      expect(translated.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo' } } },
            { id: 'call_2', function: { index: 1, name: 'get_time', arguments: {} } },
          ],
        },
        { role: 'tool', content: '{"temp_c":21}', tool_call_id: 'call_1', tool_name: 'get_weather' },
        { role: 'tool', content: '09:14', tool_call_id: 'call_2', tool_name: 'get_time' },
        { role: 'tool', content: 'orphan', tool_call_id: 'call_unknown' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_3', function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } }],
        },
      ]);
    });

    it('sends custom tool calls as calls with their text as input', () => {
      const translated = translate({
        input: [
          { type: 'custom_tool_call', call_id: 'call_9', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
          { type: 'custom_tool_call_output', call_id: 'call_9', output: 'Done!' },
        ],
      });

      expect(translated.messages).toEqual([
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'call_9',
              function: { index: 0, name: 'apply_patch', arguments: { input: '*** Begin Patch\n*** End Patch' } },
            },
          ],
        },
        { role: 'tool', content: 'Done!', tool_call_id: 'call_9', tool_name: 'apply_patch' },
      ]);
    });

    it.each([
      ['not JSON', '{"city":'],
      ['not an object', '["Tokyo"]'],
    ])('rejects call arguments that are %s naming the item', (_case, args) => {
      const call = { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: args };

      expect(badRequest({ input: [{ role: 'user', content: 'hi' }, call] }).param).toBe('input.1.arguments');
    });

    it('gives earlier reasoning to the next assistant message as thinking, and drops it before a user message', () => {
      const translated = translate({
        input: [
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'They want Tokyo.' }] },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
          {
            type: 'reasoning',
            summary: [{ type: 'summary_text', text: 'A summary.' }],
            content: [{ type: 'reasoning_text', text: 'The raw thought.' }],
          },
          { role: 'assistant', content: 'Sunny.' },
          { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Lost.' }], encrypted_content: 'opaque' },
          { role: 'user', content: 'Thanks' },
          { type: 'reasoning', summary: [] },
          { role: 'assistant', content: 'You are welcome.' },
        ],
      });

      expect(translated.messages).toEqual([
        {
          role: 'assistant',
          content: '',
          thinking: 'They want Tokyo.',
          tool_calls: [{ id: 'call_1', function: { index: 0, name: 'get_weather', arguments: {} } }],
        },
        { role: 'tool', content: 'sunny', tool_call_id: 'call_1', tool_name: 'get_weather' },
        { role: 'assistant', content: 'Sunny.', thinking: 'The raw thought.' },
        { role: 'user', content: 'Thanks' },
        { role: 'assistant', content: 'You are welcome.' },
      ]);
    });

    it('rejects an item_reference, which points at state the router does not keep', () => {
      const error = badRequest({
        input: [
          { role: 'user', content: 'hi' },
          { type: 'item_reference', id: 'msg_1' },
        ],
      });

      expect(error.param).toBe('input.1');
    });

    it("sends the node's own reply back to it after a round trip through a Responses client", () => {
      const reply = toResponsesResponse(wholeReply('tool-call'), responsesContext());
      const translated = translate({
        input: [
          { role: 'user', content: 'Weather in Tokyo?' },
          ...reply.output,
          { type: 'function_call_output', call_id: 'call_k3v9x2qa', output: '21°C' },
        ],
      });

      expect(translated.messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: '',
          thinking: 'The user wants Tokyo weather.',
          tool_calls: [
            {
              id: 'call_k3v9x2qa',
              function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo', unit: 'celsius' } },
            },
          ],
        },
        { role: 'tool', content: '21°C', tool_call_id: 'call_k3v9x2qa', tool_name: 'get_weather' },
      ]);
    });
  });

  describe('images', () => {
    const url = 'https://example.com/cat.png';

    function withImage(image: Record<string, unknown>) {
      return {
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', detail: 'low', ...image },
            ],
          },
        ],
      };
    }

    it('decodes a data URI to bare base64', () => {
      expect(translate(withImage({ image_url: `data:image/png;base64,${PNG}` })).messages).toEqual([
        { role: 'user', content: 'What is this?', images: [PNG] },
      ]);
    });

    it('takes a fetched URL from the images the caller passed, in tool results too', () => {
      const options = { images: new Map([[url, 'ZmV0Y2hlZA==']]) };
      const translated = translate(
        {
          input: [
            ...withImage({ image_url: url }).input,
            { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: url }] },
          ],
        },
        options,
      );

      expect(translated.messages).toEqual([
        { role: 'user', content: 'What is this?', images: ['ZmV0Y2hlZA=='] },
        { role: 'tool', content: '', images: ['ZmV0Y2hlZA=='], tool_call_id: 'c' },
      ]);
    });

    it.each([
      ['an http(s) URL that was not fetched', { image_url: url }, 'input.0.content.1.image_url'],
      ['a data URI that is not base64', { image_url: 'data:image/svg+xml,<svg/>' }, 'input.0.content.1.image_url'],
      ['a data URI with broken base64', { image_url: 'data:image/png;base64,abc$' }, 'input.0.content.1.image_url'],
      ['another scheme', { image_url: 'ftp://example.com/cat.png' }, 'input.0.content.1.image_url'],
      ['a file_id', { file_id: 'file-1' }, 'input.0.content.1'],
    ])('rejects %s naming the field', (_case, image, field) => {
      expect(badRequest(withImage(image)).param).toBe(field);
    });

    it('rejects an input_file part naming it', () => {
      const input = [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Read' },
            { type: 'input_file', file_id: 'f' },
          ],
        },
      ];

      expect(badRequest({ input }).param).toBe('input.0.content.1');
    });

    it('lists the URLs to fetch with their fields, in order, without data URIs', () => {
      const request = responsesRequest({
        input: [
          ...withImage({ image_url: url }).input,
          ...withImage({ image_url: `data:image/png;base64,${PNG}` }).input,
          {
            type: 'function_call_output',
            call_id: 'c',
            output: [{ type: 'input_image', image_url: 'http://example.com/b.png' }],
          },
          ...withImage({ image_url: url }).input,
        ],
      });

      expect(responsesImageUrlsToFetch(request)).toEqual([
        { url, field: 'input.0.content.1.image_url' },
        { url: 'http://example.com/b.png', field: 'input.2.output.0.image_url' },
        { url, field: 'input.3.content.1.image_url' },
      ]);
      expect(responsesImageUrlsToFetch(responsesRequest({ input: 'hi' }))).toEqual([]);
    });
  });
});
