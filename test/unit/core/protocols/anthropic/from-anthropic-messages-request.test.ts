import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../../lib/core/errors';
import {
  anthropicImageUrls,
  anthropicSkippedBlocks,
  type FromAnthropicMessagesRequestOptions,
  fromAnthropicMessagesRequest,
} from '../../../../../lib/core/protocols/anthropic/from-anthropic-messages-request';
import { toAnthropicMessage } from '../../../../../lib/core/protocols/anthropic/to-anthropic-message';
import { type AnthropicMessagesRequest, parseAnthropicMessagesRequest } from '../../../../../lib/core/wire/anthropic';
import type { OllamaChatRequest } from '../../../../../lib/core/wire/ollama';

const NO_IMAGES: FromAnthropicMessagesRequestOptions = { images: new Map() };
const THINKING_MODEL: FromAnthropicMessagesRequestOptions = { images: new Map(), thinking: { capable: true } };
const PLAIN_MODEL: FromAnthropicMessagesRequestOptions = { images: new Map(), thinking: { capable: false } };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const USER_HI = [{ role: 'user', content: 'hi' }];

/** Parses the body as the handler does, so each case is a request a client could send. */
function request(body: Record<string, unknown>): AnthropicMessagesRequest {
  const parsed = parseAnthropicMessagesRequest({ model: 'qwen3:8b', max_tokens: 1024, messages: USER_HI, ...body });
  if (!parsed.ok) throw new Error(`${parsed.field}: ${parsed.message}`);
  return parsed.value;
}

function translate(body: Record<string, unknown>, options = NO_IMAGES): OllamaChatRequest {
  return fromAnthropicMessagesRequest(request(body), options);
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

function user(...content: unknown[]) {
  return { messages: [{ role: 'user', content }] };
}

describe('fromAnthropicMessagesRequest', () => {
  it('translates a minimal request without defaulting anything', () => {
    expect(translate({})).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
      options: { num_predict: 1024 },
    });
  });

  it('keeps the stream flag', () => {
    expect(translate({ stream: true }).stream).toBe(true);
  });

  describe('options', () => {
    it('maps the sampling fields and stop_sequences into options', () => {
      const translated = translate({ temperature: 0, top_p: 0.9, top_k: 40, stop_sequences: ['\n\nHuman:', 'END'] });

      expect(translated.options).toEqual({
        temperature: 0,
        top_p: 0.9,
        top_k: 40,
        stop: ['\n\nHuman:', 'END'],
        num_predict: 1024,
      });
    });

    it('leaves out sampling fields sent as null', () => {
      expect(translate({ temperature: null, top_p: null, top_k: null }).options).toEqual({ num_predict: 1024 });
    });
  });

  describe('thinking', () => {
    it.each([
      ['enabled', { thinking: { type: 'enabled', budget_tokens: 2048 } }, true],
      ['disabled', { thinking: { type: 'disabled' } }, false],
      ['adaptive', { thinking: { type: 'adaptive' } }, true],
      ['adaptive with an effort', { thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }, 'low'],
      ['only an effort', { output_config: { effort: 'medium' } }, 'medium'],
      ['effort xhigh', { output_config: { effort: 'xhigh' } }, 'high'],
      ['effort max', { output_config: { effort: 'max' } }, 'max'],
      ['disabled with an effort', { thinking: { type: 'disabled' }, output_config: { effort: 'high' } }, false],
      ['nothing', {}, undefined],
    ])('maps %s to think %j', (_case, fields, think) => {
      expect(translate(fields, THINKING_MODEL).think).toBe(think);
    });

    it('sends think when the capability is unknown', () => {
      expect(translate({ thinking: { type: 'enabled', budget_tokens: 2048 } }).think).toBe(true);
    });

    it('sends no think to a model known not to think', () => {
      expect(translate({ thinking: { type: 'enabled', budget_tokens: 2048 } }, PLAIN_MODEL)).not.toHaveProperty(
        'think',
      );
      expect(translate({ output_config: { effort: 'high' } }, PLAIN_MODEL)).not.toHaveProperty('think');
    });

    it.each([
      ['no thinking field', {}, 4096, 4096 + 3 * 4096],
      ['adaptive thinking', { thinking: { type: 'adaptive' } }, 300, 1324],
      ['an effort', { output_config: { effort: 'low' } }, 100, 1124],
    ])('raises the budget of a thinking model given %s', (_case, fields, maxTokens, numPredict) => {
      expect(translate({ ...fields, max_tokens: maxTokens }, THINKING_MODEL).options?.num_predict).toBe(numPredict);
    });

    it.each([
      [
        'thinking is enabled with its own budget',
        { thinking: { type: 'enabled', budget_tokens: 2048 } },
        THINKING_MODEL,
      ],
      ['thinking is disabled', { thinking: { type: 'disabled' } }, THINKING_MODEL],
      ['the model does not think', {}, PLAIN_MODEL],
      ['the capability is unknown', {}, NO_IMAGES],
    ])('keeps max_tokens as num_predict when %s', (_case, fields, options) => {
      expect(translate({ ...fields, max_tokens: 4096 }, options).options?.num_predict).toBe(4096);
    });
  });

  describe('system prompt', () => {
    it('puts a string system first', () => {
      expect(translate({ system: 'Be brief.' }).messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ]);
    });

    it('joins text blocks with a line break and normalises the billing fingerprint', () => {
      const system = [
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.0.14; cch=9f3a0c1e;' },
        { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
      ];

      expect(translate({ system }).messages[0]).toEqual({
        role: 'system',
        content: 'x-anthropic-billing-header: cc_version=2.0.14; cch=NORMALIZED;\nYou are Claude Code.',
      });
    });

    it('folds system turns inside messages into the system prompt', () => {
      const messages = [
        { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'hi' },
      ];

      expect(translate({ system: 'Be brief.', messages }).messages).toEqual([
        { role: 'system', content: 'Be brief.\nAnswer in French.' },
        { role: 'user', content: 'hi' },
      ]);
    });

    it('sends no system message for an empty system', () => {
      expect(translate({ system: '' }).messages).toEqual([{ role: 'user', content: 'hi' }]);
    });
  });

  describe('tools', () => {
    const weather = {
      name: 'get_weather',
      description: 'Current weather',
      input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      cache_control: { type: 'ephemeral' },
    };
    const time = { type: 'custom', name: 'get_time', input_schema: { type: 'object', properties: {} } };
    const ollamaWeather = {
      type: 'function',
      function: { name: 'get_weather', description: 'Current weather', parameters: weather.input_schema },
    };
    const ollamaTime = { type: 'function', function: { name: 'get_time', parameters: time.input_schema } };

    it('turns client tools into Ollama function tools', () => {
      expect(translate({ tools: [weather, time] }).tools).toEqual([ollamaWeather, ollamaTime]);
    });

    it.each([
      ['absent', undefined, ['get_weather', 'get_time'], undefined],
      ['auto', { type: 'auto' }, ['get_weather', 'get_time'], undefined],
      ['any', { type: 'any' }, ['get_weather', 'get_time'], 'You must respond by calling one of the provided tools.'],
      [
        'tool',
        { type: 'tool', name: 'get_time' },
        ['get_time'],
        'You must respond by calling the tool named "get_time".',
      ],
      ['none', { type: 'none' }, undefined, undefined],
      [
        'auto without parallel calls',
        { type: 'auto', disable_parallel_tool_use: true },
        ['get_weather', 'get_time'],
        'Call at most one tool in your response.',
      ],
    ])('sends the tools and instruction tool_choice %s asks for', (_case, toolChoice, names, instruction) => {
      const translated = translate({ system: 'Be brief.', tools: [weather, time], tool_choice: toolChoice });

      expect(translated.tools?.map((tool) => tool.function.name)).toEqual(names);
      expect(translated.messages[0]).toEqual({
        role: 'system',
        content: instruction === undefined ? 'Be brief.' : `Be brief.\n\n${instruction}`,
      });
    });

    it('makes the instruction the whole system prompt when there is no system', () => {
      expect(translate({ tools: [weather], tool_choice: { type: 'any' } }).messages[0]).toEqual({
        role: 'system',
        content: 'You must respond by calling one of the provided tools.',
      });
    });

    it.each([
      [
        'a tool_choice naming a tool that is not there',
        { tools: [weather], tool_choice: { type: 'tool', name: 'nope' } },
        'tool_choice.name',
      ],
      ['tool_choice any without tools', { tool_choice: { type: 'any' } }, 'tool_choice'],
      [
        'a server tool',
        { tools: [weather, { type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] },
        'tools.1.type',
      ],
      ['a client tool without input_schema', { tools: [{ name: 'f' }] }, 'tools.0.input_schema'],
    ])('rejects %s naming the field', (_case, fields, field) => {
      expect(badRequest(fields).param).toBe(field);
    });
  });

  describe('output_config.format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } } };

    it('sends a json_schema format as the schema', () => {
      expect(translate({ output_config: { format: { type: 'json_schema', schema } } }).format).toEqual(schema);
    });

    it('rejects another format type', () => {
      expect(badRequest({ output_config: { format: { type: 'xml' } } }).param).toBe('output_config.format.type');
    });
  });

  describe('other fields', () => {
    it('forwards fields it does not translate and strips the router fields', () => {
      const translated = translate({
        service_tier: 'auto',
        container: null,
        x_experimental: { level: 2 },
        metadata: { user_id: 'alice', tags: ['batch'] },
        fallback_models: ['llama3.2:3b'],
      });

      expect(translated).toEqual({
        model: 'qwen3:8b',
        messages: [{ role: 'user', content: 'hi' }],
        stream: false,
        options: { num_predict: 1024 },
        service_tier: 'auto',
        container: null,
        x_experimental: { level: 2 },
      });
    });
  });

  describe('content blocks', () => {
    it('joins text blocks with a line break', () => {
      expect(
        translate(user({ type: 'text', text: 'One.' }, { type: 'text', text: 'Two.', citations: null })).messages,
      ).toEqual([{ role: 'user', content: 'One.\nTwo.' }]);
    });

    it('turns a base64 image into bare base64', () => {
      const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };

      expect(translate(user(image, { type: 'text', text: 'What is this?' })).messages).toEqual([
        { role: 'user', content: 'What is this?', images: [PNG] },
      ]);
    });

    it('takes a URL image from the images the caller fetched', () => {
      const url = 'https://example.com/cat.png';
      const image = { type: 'image', source: { type: 'url', url } };

      expect(translate(user(image), { images: new Map([[url, 'ZmV0Y2hlZA==']]) }).messages).toEqual([
        { role: 'user', content: '', images: ['ZmV0Y2hlZA=='] },
      ]);
    });

    it.each([
      ['broken base64', { type: 'base64', media_type: 'image/png', data: 'abc$' }, 'messages.0.content.0.source.data'],
      ['cut base64', { type: 'base64', media_type: 'image/png', data: 'abcde' }, 'messages.0.content.0.source.data'],
      [
        'a URL that was not fetched',
        { type: 'url', url: 'https://example.com/a.png' },
        'messages.0.content.0.source.url',
      ],
      ['a URL that is not http(s)', { type: 'url', url: 'ftp://example.com/a.png' }, 'messages.0.content.0.source.url'],
      ['a file source', { type: 'file', file_id: 'file_011' }, 'messages.0.content.0.source'],
    ])('rejects an image with %s naming the field', (_case, source, field) => {
      expect(badRequest(user({ type: 'image', source })).param).toBe(field);
    });

    it('reads a plain-text document as its title and text', () => {
      const document = {
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: 'The grass is green.' },
        title: 'Facts',
        citations: { enabled: true },
      };

      expect(translate(user(document, { type: 'text', text: 'Colour?' })).messages).toEqual([
        { role: 'user', content: 'Facts\nThe grass is green.\nColour?' },
      ]);
    });

    it('reads a content document as its text and images', () => {
      const document = {
        type: 'document',
        source: {
          type: 'content',
          content: [
            { type: 'text', text: 'Page one.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
      };

      expect(translate(user(document)).messages).toEqual([{ role: 'user', content: 'Page one.', images: [PNG] }]);
    });

    it.each([
      ['base64', { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' }],
      ['url', { type: 'url', url: 'https://example.com/a.pdf' }],
      ['file', { type: 'file', file_id: 'file_011' }],
    ])('rejects a %s document naming its source', (_case, source) => {
      expect(badRequest(user({ type: 'document', source })).param).toBe('messages.0.content.0.source');
    });

    it('skips blocks of unknown types and redacted thinking', () => {
      const translated = translate({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'search_result', source: 'x', title: 't', content: [] },
              { type: 'text', text: 'hi' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' },
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
              { type: 'text', text: 'hello' },
            ],
          },
        ],
      });

      expect(translated.messages).toEqual([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ]);
    });
  });

  describe('tool use', () => {
    const history = [
      { role: 'user', content: 'Weather in Tokyo and the time?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Two calls.', signature: 'EqQBCgIYAhIM' },
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Tokyo' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"temp_c":21}' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [
              { type: 'text', text: 'clock offline' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            ],
            is_error: true,
          },
          { type: 'text', text: 'Summarise.' },
        ],
      },
    ];

    it('keeps ids, thinking and arguments, and puts each result in its own tool message before the text', () => {
      expect(translate({ messages: history }).messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: 'Let me check.',
          thinking: 'Two calls.',
          tool_calls: [
            { id: 'toolu_1', function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo' } } },
            { id: 'toolu_2', function: { index: 1, name: 'get_time', arguments: {} } },
          ],
        },
        { role: 'tool', content: '{"temp_c":21}', tool_call_id: 'toolu_1', tool_name: 'get_weather' },
        {
          role: 'tool',
          content: 'Error: clock offline',
          images: [PNG],
          tool_call_id: 'toolu_2',
          tool_name: 'get_time',
        },
        { role: 'user', content: 'Summarise.' },
      ]);
    });

    it('sends no empty user message after tool results alone, and names no tool it does not know', () => {
      const messages = [
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_8', content: [], is_error: true }] },
      ];

      expect(translate({ messages }).messages).toEqual([
        { role: 'tool', content: '', tool_call_id: 'toolu_9' },
        { role: 'tool', content: 'Error', tool_call_id: 'toolu_8' },
      ]);
    });

    it("sends the node's tool call back to it unchanged after a round trip through an Anthropic client", () => {
      const nodeCall = {
        id: 'call_k3v9x2qa',
        function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo' } },
      };
      const message = toAnthropicMessage(
        { message: { role: 'assistant', content: '', tool_calls: [nodeCall] }, done: true, done_reason: 'stop' },
        { id: 'msg_1', model: 'qwen3:8b', stopSequences: [] },
      );
      const assistant = { role: 'assistant', content: JSON.parse(JSON.stringify(message.content)) as unknown };
      const result = {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_k3v9x2qa', content: 'sunny' }],
      };

      expect(translate({ messages: [...USER_HI, assistant, result] }).messages.slice(1)).toEqual([
        { role: 'assistant', content: '', tool_calls: [nodeCall] },
        { role: 'tool', content: 'sunny', tool_call_id: 'call_k3v9x2qa', tool_name: 'get_weather' },
      ]);
    });

    it('rejects a PDF inside a tool result naming its source', () => {
      const pdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } };
      const error = badRequest(user({ type: 'tool_result', tool_use_id: 'toolu_1', content: [pdf] }));

      expect(error.param).toBe('messages.0.content.0.content.0.source');
    });
  });
});

describe('anthropicImageUrls', () => {
  it('lists each http(s) image URL with its field, in order, in messages, tool results and documents', () => {
    const image = (url: string) => ({ type: 'image', source: { type: 'url', url } });
    const parsed = request({
      messages: [
        {
          role: 'user',
          content: [
            image('https://a.test/1.png'),
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [image('HTTP://b.test/2.png')] }] },
        {
          role: 'user',
          content: [{ type: 'document', source: { type: 'content', content: [image('https://c.test/3.png')] } }],
        },
        { role: 'user', content: [image('https://a.test/1.png'), image('ftp://d.test/4.png')] },
      ],
    });

    expect(anthropicImageUrls(parsed)).toEqual([
      { url: 'https://a.test/1.png', field: 'messages.0.content.0.source.url' },
      { url: 'HTTP://b.test/2.png', field: 'messages.1.content.0.content.0.source.url' },
      { url: 'https://c.test/3.png', field: 'messages.2.content.0.source.content.0.source.url' },
      { url: 'https://a.test/1.png', field: 'messages.3.content.0.source.url' },
    ]);
  });
});

describe('anthropicSkippedBlocks', () => {
  it('names each block the translation leaves out, wherever it is', () => {
    const parsed = request({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'search_result', source: 's', title: 't', content: [] },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'x' },
            { type: 'text', text: 'ok' },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'tool_reference', tool_name: 'x' }] }],
        },
      ],
    });

    expect(anthropicSkippedBlocks(parsed)).toEqual([
      { field: 'messages.0.content.1', type: 'search_result' },
      { field: 'messages.1.content.0', type: 'redacted_thinking' },
      { field: 'messages.2.content.0.content.0', type: 'tool_reference' },
    ]);
  });
});
