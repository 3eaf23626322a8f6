import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../../lib/core/errors';
import {
  type FromOpenAIChatRequestOptions,
  fromOpenAIChatRequest,
  imageUrlsToFetch,
} from '../../../../../lib/core/protocols/openai/from-openai-chat-request';
import { toOpenAIChatCompletion } from '../../../../../lib/core/protocols/openai/to-openai-chat-completion';
import type { OllamaChatRequest } from '../../../../../lib/core/wire/ollama';
import { type OpenAIChatRequest, parseOpenAIChatRequest } from '../../../../../lib/core/wire/openai';

const NO_IMAGES: FromOpenAIChatRequestOptions = { images: new Map() };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Parses the body as the handler does, so each case is a request a client could send. */
function request(body: Record<string, unknown>): OpenAIChatRequest {
  const parsed = parseOpenAIChatRequest({ model: 'qwen3:8b', ...body });
  if (!parsed.ok) throw new Error(`${parsed.field}: ${parsed.message}`);
  return parsed.value;
}

function translate(body: Record<string, unknown>, options = NO_IMAGES): OllamaChatRequest {
  return fromOpenAIChatRequest(request(body), options);
}

const USER_HI = [{ role: 'user', content: 'hi' }];

function badRequest(body: Record<string, unknown>, options = NO_IMAGES): BadRequestError {
  try {
    translate(body, options);
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
  throw new Error('expected a BadRequestError');
}

describe('fromOpenAIChatRequest', () => {
  it('translates a minimal request', () => {
    expect(translate({ messages: USER_HI })).toEqual({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
      options: { temperature: 0.7 },
    });
  });

  it('keeps the stream flag and sends no messages when there are none', () => {
    expect(translate({ stream: true })).toMatchObject({ stream: true, messages: [] });
  });

  describe('options', () => {
    it.each([
      ['absent', {}, 0.7],
      ['null', { temperature: null }, 0.7],
      ['0', { temperature: 0 }, 0],
      ['0.7', { temperature: 0.7 }, 0.7],
      ['1.3', { temperature: 1.3 }, 1.3],
      ["given only in Ollama's options", { options: { temperature: 0.2 } }, 0.2],
    ])('sets temperature when it is %s', (_case, fields, expected) => {
      expect(translate({ messages: USER_HI, ...fields }).options?.temperature).toBe(expected);
    });

    it('maps the sampling fields into options', () => {
      const translated = translate({
        messages: USER_HI,
        temperature: 0.1,
        top_p: 0.9,
        seed: 42,
        frequency_penalty: 0.5,
        presence_penalty: -0.5,
        stop: ['\n\n', 'END'],
        max_tokens: 256,
      });

      expect(translated.options).toEqual({
        temperature: 0.1,
        top_p: 0.9,
        seed: 42,
        frequency_penalty: 0.5,
        presence_penalty: -0.5,
        stop: ['\n\n', 'END'],
        num_predict: 256,
      });
    });

    it('turns a single stop string into a list', () => {
      expect(translate({ stop: 'END' }).options?.stop).toEqual(['END']);
    });

    it.each([
      ['max_tokens', { max_tokens: 100 }, 100],
      ['max_completion_tokens', { max_completion_tokens: 200 }, 200],
      ['both (max_completion_tokens wins)', { max_tokens: 100, max_completion_tokens: 200 }, 200],
      ["Ollama's num_predict", { options: { num_predict: 300 } }, 300],
      ['max_tokens over num_predict', { max_tokens: 100, options: { num_predict: 300 } }, 100],
      ['nothing', {}, undefined],
    ])('takes num_predict from %s', (_case, fields, expected) => {
      expect(translate(fields).options?.num_predict).toBe(expected);
    });

    it("keeps Ollama's own options the client sent", () => {
      expect(translate({ options: { num_ctx: 8192, top_k: 20 } }).options).toEqual({
        num_ctx: 8192,
        top_k: 20,
        temperature: 0.7,
      });
    });
  });

  describe('response_format', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

    it.each([
      ['json_object', { type: 'json_object' }, 'json'],
      ['json_schema', { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } }, schema],
      ['json_schema without a schema', { type: 'json_schema', json_schema: { name: 'answer' } }, 'json'],
      ['text', { type: 'text' }, undefined],
    ])('maps %s to format', (_case, responseFormat, expected) => {
      expect(translate({ response_format: responseFormat }).format).toEqual(expected);
    });

    it("uses Ollama's format when response_format is absent", () => {
      expect(translate({ format: schema }).format).toEqual(schema);
      expect(translate({ format: schema, response_format: { type: 'json_object' } }).format).toBe('json');
    });
  });

  describe('tools', () => {
    const weather = {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: true,
      },
    };
    const time = { type: 'function', function: { name: 'get_time' } };

    it('forwards function tools whole', () => {
      expect(translate({ tools: [weather, time] }).tools).toEqual([weather, time]);
    });

    it.each([
      ['auto', ['get_weather', 'get_time']],
      ['required', ['get_weather', 'get_time']],
      ['none', undefined],
      [{ type: 'function', function: { name: 'get_time' } }, ['get_time']],
    ])('sends the tools tool_choice %j allows', (toolChoice, names) => {
      const tools = translate({ tools: [weather, time], tool_choice: toolChoice }).tools;

      expect(tools?.map((tool) => tool.function.name)).toEqual(names);
    });

    it('rejects a tool_choice naming a tool that is not there', () => {
      const error = badRequest({ tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } });

      expect(error.param).toBe('tool_choice.function.name');
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
    ])('maps reasoning_effort %s to think %j', (effort, think) => {
      expect(translate({ reasoning_effort: effort }).think).toBe(think);
    });

    it("lets Ollama's think win over reasoning_effort", () => {
      expect(translate({ reasoning_effort: 'high', think: false }).think).toBe(false);
    });

    it('sends no think to a model known not to think', () => {
      const options = { images: new Map(), thinking: { capable: false } };

      expect(translate({ reasoning_effort: 'high' }, options)).not.toHaveProperty('think');
      expect(translate({ think: true }, options)).not.toHaveProperty('think');
    });

    it.each([
      [300, 1324],
      [10, 1034],
      [1000, 4000],
      [-1, -1],
      [0, 0],
    ])('raises a thinking model budget of %i to %i', (budget, raised) => {
      const options = { images: new Map(), thinking: { capable: true } };

      expect(translate({ max_tokens: budget }, options).options?.num_predict).toBe(raised);
    });

    it.each([
      ['thinking is switched off', { think: false }, { capable: true }],
      ['reasoning_effort is none', { reasoning_effort: 'none' }, { capable: true }],
      ['the model does not think', {}, { capable: false }],
      ['the capability is unknown', {}, undefined],
    ])('keeps the budget when %s', (_case, fields, thinking) => {
      const options = thinking === undefined ? NO_IMAGES : { images: new Map(), thinking };

      expect(translate({ max_tokens: 300, ...fields }, options).options?.num_predict).toBe(300);
    });
  });

  describe('other fields', () => {
    it('forwards fields it does not translate and strips the router fields', () => {
      const translated = translate({
        messages: USER_HI,
        store: false,
        service_tier: 'auto',
        parallel_tool_calls: false,
        logprobs: true,
        top_logprobs: 3,
        keep_alive: '10m',
        n: 1,
        x_experimental: { level: 2 },
        stream_options: { include_usage: true },
        metadata: { tags: ['batch'] },
        fallback_models: ['llama3.2:3b'],
        user: 'alice',
      });

      expect(translated).toEqual({
        model: 'qwen3:8b',
        messages: [{ role: 'user', content: 'hi' }],
        stream: false,
        options: { temperature: 0.7 },
        store: false,
        service_tier: 'auto',
        parallel_tool_calls: false,
        logprobs: true,
        top_logprobs: 3,
        keep_alive: '10m',
        n: 1,
        x_experimental: { level: 2 },
      });
    });

    it.each([
      ['n', { n: 2 }],
      ['functions', { functions: [{ name: 'f' }] }],
      ['function_call', { function_call: 'auto' }],
      ['modalities', { modalities: ['text', 'audio'] }],
    ])('rejects %s with a 400 naming it', (field, fields) => {
      const error = badRequest(fields);

      expect(error.status).toBe(400);
      expect(error.param).toBe(field);
    });
  });

  describe('messages', () => {
    it('turns system and developer messages into system messages with their text parts joined', () => {
      const translated = translate({
        messages: [
          { role: 'system', content: 'Be brief.', name: 'ops' },
          {
            role: 'developer',
            content: [
              { type: 'text', text: 'Answer in French.' },
              { type: 'text', text: 'Use metric units.' },
            ],
          },
        ],
      });

      expect(translated.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Answer in French.\nUse metric units.' },
      ]);
    });

    it('brings back earlier reasoning and refusals of assistant messages', () => {
      const translated = translate({
        messages: [
          { role: 'assistant', content: 'Fine.', reasoning_content: 'They want a short answer.' },
          { role: 'assistant', content: null, refusal: 'I cannot help with that.' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Partly.' },
              { type: 'refusal', refusal: 'Not the rest.' },
            ],
            reasoning: 'Mixed.',
          },
        ],
      });

      expect(translated.messages).toEqual([
        { role: 'assistant', content: 'Fine.', thinking: 'They want a short answer.' },
        { role: 'assistant', content: 'I cannot help with that.' },
        { role: 'assistant', content: 'Partly.\nNot the rest.', thinking: 'Mixed.' },
      ]);
    });
  });

  describe('images', () => {
    const url = 'https://example.com/cat.png';

    function withImage(imageUrl: string) {
      return {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: imageUrl, detail: 'low' } },
            ],
          },
        ],
      };
    }

    it('decodes a data URI to bare base64', () => {
      expect(translate(withImage(`data:image/png;base64,${PNG}`)).messages).toEqual([
        { role: 'user', content: 'What is this?', images: [PNG] },
      ]);
    });

    it('takes a fetched URL from the images the caller passed', () => {
      const translated = translate(withImage(url), { images: new Map([[url, 'ZmV0Y2hlZA==']]) });

      expect(translated.messages[0]?.images).toEqual(['ZmV0Y2hlZA==']);
    });

    it.each([
      ['an http(s) URL that was not fetched', url],
      ['a data URI that is not base64', 'data:image/svg+xml,<svg/>'],
      ['a data URI with broken base64', 'data:image/png;base64,abc$'],
      ['a data URI with cut base64', 'data:image/png;base64,abcde'],
      ['a data URI of text', 'data:text/plain;base64,aGVsbG8='],
      ['a data URI with no bytes', 'data:image/png;base64,'],
      ['another scheme', 'ftp://example.com/cat.png'],
    ])('rejects %s naming the url field', (_case, imageUrl) => {
      expect(badRequest(withImage(imageUrl)).param).toBe('messages.0.content.1.image_url.url');
    });

    it('takes a data URI that names no type', () => {
      expect(translate(withImage(`data:;base64,${PNG}`)).messages[0]?.images).toEqual([PNG]);
    });

    it.each([
      ['input_audio', { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }],
      ['file', { type: 'file', file: { file_id: 'file-1' } }],
    ])('rejects an %s part naming it', (_case, part) => {
      const error = badRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Listen' }, part] }] });

      expect(error.param).toBe('messages.0.content.1');
    });
  });

  describe('tool calls', () => {
    const history = [
      { role: 'user', content: 'Weather in Tokyo and the time?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: '09:14' }] },
      { role: 'tool', tool_call_id: 'call_unknown', content: 'orphan' },
    ];

    it('parses arguments into objects and names tool results after their call', () => {
      expect(translate({ messages: history }).messages.slice(1)).toEqual([
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_1', function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo' } } },
            { id: 'call_2', function: { index: 1, name: 'get_time', arguments: {} } },
          ],
        },
        { role: 'tool', content: '{"temp_c":21}', tool_call_id: 'call_1', tool_name: 'get_weather' },
        { role: 'tool', content: '09:14', tool_call_id: 'call_2', tool_name: 'get_time' },
        { role: 'tool', content: 'orphan', tool_call_id: 'call_unknown' },
      ]);
    });

    it.each([
      ['not JSON', '{"city":'],
      ['not an object', '["Tokyo"]'],
    ])('rejects arguments that are %s naming the field', (_case, args) => {
      const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: args } };
      const error = badRequest({ messages: [...USER_HI, { role: 'assistant', content: null, tool_calls: [call] }] });

      expect(error.param).toBe('messages.1.tool_calls.0.function.arguments');
    });

    it("sends the node's own tool call back to it unchanged after a round trip through an OpenAI client", () => {
      const nodeCall = {
        id: 'call_k3v9x2qa',
        function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo' } },
      };
      const completion = toOpenAIChatCompletion(
        { message: { role: 'assistant', content: '', tool_calls: [nodeCall] }, done: true, done_reason: 'stop' },
        { id: 'chatcmpl-1', created: 1, model: 'qwen3:8b' },
      );
      const assistant = JSON.parse(JSON.stringify(completion.choices[0].message)) as unknown;

      const translated = translate({
        messages: [...USER_HI, assistant, { role: 'tool', tool_call_id: 'call_k3v9x2qa', content: 'sunny' }],
      });

      expect(translated.messages.slice(1)).toEqual([
        { role: 'assistant', content: '', tool_calls: [nodeCall] },
        { role: 'tool', content: 'sunny', tool_call_id: 'call_k3v9x2qa', tool_name: 'get_weather' },
      ]);
    });
  });
});

describe('imageUrlsToFetch', () => {
  it('lists each http(s) image URL with its field, in order, and no data URIs', () => {
    const parsed = request({
      messages: [
        { role: 'system', content: 'x' },
        { role: 'user', content: 'plain' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://a.test/1.png' } },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'HTTP://b.test/2.png' } },
          ],
        },
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://a.test/1.png' } }] },
      ],
    });

    expect(imageUrlsToFetch(parsed)).toEqual([
      { url: 'https://a.test/1.png', field: 'messages.2.content.0.image_url.url' },
      { url: 'HTTP://b.test/2.png', field: 'messages.2.content.2.image_url.url' },
      { url: 'https://a.test/1.png', field: 'messages.3.content.0.image_url.url' },
    ]);
  });
});

describe('parseOpenAIChatRequest', () => {
  it.each([
    ['model', { messages: USER_HI }],
    ['messages.0.role', { model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] }],
    ['messages.0.content', { model: 'm', messages: [{ role: 'user', content: 42 }] }],
    ['tools.0.type', { model: 'm', tools: [{ type: 'custom', custom: { name: 'x' } }] }],
    ['max_tokens', { model: 'm', max_tokens: 1.5 }],
    ['reasoning_effort', { model: 'm', reasoning_effort: 'extreme' }],
  ])('names %s when it is wrong', (field, body) => {
    const parsed = parseOpenAIChatRequest(body);

    expect(parsed).toMatchObject({ ok: false, field });
  });

  it('keeps fields it does not know, at every level', () => {
    const parsed = parseOpenAIChatRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'hi', future: 1 }],
      future_top: true,
    });

    expect(parsed).toMatchObject({ ok: true, value: { future_top: true, messages: [{ future: 1 }] } });
  });
});
