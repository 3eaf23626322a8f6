/**
 * `/v1/messages` end to end, as Claude Code and the official `@anthropic-ai/sdk` call it: the built
 * emulator, simulated nodes, whole and streamed replies, a tool round trip, model ids the fleet does not
 * have (auto-routed by tier, mapped, or 404 in Anthropic's shape), images to a vision model, API keys in
 * both headers, a failure after the first byte, and `messages.countTokens`.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let node: SimNode;
let vision: SimNode;
let router: RouterProcess;
let client: Anthropic;

const catalog = (names: readonly string[]) => CATALOG.filter((entry) => names.includes(entry.name));
const weather: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** A 1×1 PNG, as clients attach images. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Waits until the router has polled every node and sees their loaded models (auto-routing picks among them). */
async function waitForFleet(url: string): Promise<void> {
  await eventually(async () => {
    const ps = (await (await fetch(`${url}/api/ps`)).json()) as { models: { name: string }[] };
    expect(ps.models.map((model) => model.name)).toEqual(
      expect.arrayContaining(['llama3.2:3b', 'qwen3:8b', 'llava:7b']),
    );
  });
}

beforeAll(async () => {
  const models = catalog(['llama3.2:3b', 'qwen3:8b']);
  node = await startSimNode({
    id: 'a',
    models,
    loaded: ['llama3.2:3b', 'qwen3:8b'],
    ttftMs: 10,
    tokensPerSecond: 2000,
  });
  vision = await startSimNode({
    id: 'v',
    models: catalog(['llava:7b']),
    loaded: ['llava:7b'],
    ttftMs: 10,
    tokensPerSecond: 2000,
  });
  router = await startRouter({ FLEET_NODES: `a=${node.url},v=${vision.url}` });
  client = new Anthropic({ baseURL: router.url, apiKey: 'unused', maxRetries: 0 });
  await waitForFleet(router.url);
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
  await vision?.close();
});

describe('POST /v1/messages', () => {
  it('answers messages.create with a message', async () => {
    const message = await client.messages.create({
      model: 'llama3.2:3b',
      max_tokens: 24,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'hello from anthropic' }],
    });

    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.id).toMatch(/^msg_/);
    expect(message.content[0]?.type === 'text' ? message.content[0].text : '').toContain('hello from anthropic');
    // The simulated model ends its answer on its own, inside the budget.
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBe(12);
  });

  it("ends its answer on its own under the AI SDK's max_tokens of 64000, and stops at a budget smaller", async () => {
    // Streamed, as the AI SDK does (the SDK refuses a non-streamed request with this budget).
    const ask = (max_tokens: number) =>
      client.messages
        .stream({ model: 'llama3.2:3b', max_tokens, messages: [{ role: 'user', content: 'hi there' }] })
        .finalMessage();

    const roomy = await ask(64_000);
    const tight = await ask(3);

    expect(roomy.stop_reason).toBe('end_turn');
    expect(roomy.usage.output_tokens).toBe(12);
    expect(roomy.content[0]?.type === 'text' ? roomy.content[0].text : '').toMatch(/^Echo: hi there .*\.$/);
    expect(tight.stop_reason).toBe('max_tokens');
    expect(tight.usage.output_tokens).toBe(3);
  });

  it('streams, and messages.stream().finalMessage() rebuilds the message from the events', async () => {
    const deltas: string[] = [];
    const stream = client.messages.stream({
      model: 'llama3.2:3b',
      max_tokens: 24,
      messages: [{ role: 'user', content: 'stream this please' }],
    });
    stream.on('text', (text) => deltas.push(text));
    const final = await stream.finalMessage();

    expect(deltas.length).toBeGreaterThan(3);
    expect(final.content).toEqual([{ type: 'text', text: deltas.join('') }]);
    expect(deltas.join('')).toContain('stream this please');
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBe(12);
  });

  it('streams with the routing headers, the echoed anthropic-version and the event-stream type', async () => {
    const { response, data } = await client.messages
      .create({
        model: 'llama3.2:3b',
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'headers please' }],
      })
      .withResponse();
    const events: string[] = [];
    for await (const event of data) events.push(event.type);

    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-fleet-node')).toBe('a');
    expect(response.headers.get('x-fleet-model')).toBe('llama3.2:3b');
    expect(response.headers.get('x-fleet-model-resolution')).toBe('fleet');
    expect(response.headers.get('anthropic-version')).toBe('2026-10-21');
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
  });

  it('runs a tool round trip: tool_use, then an answer to the tool_result', async () => {
    const first = await client.messages.create({
      model: 'qwen3:8b',
      max_tokens: 64,
      tools: [weather],
      messages: [{ role: 'user', content: 'call get_weather for Paris' }],
    });
    const call = first.content.find((block) => block.type === 'tool_use');
    const second = await client.messages.create({
      model: 'qwen3:8b',
      max_tokens: 64,
      tools: [weather],
      messages: [
        { role: 'user', content: 'call get_weather for Paris' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: 'sunny and 21 degrees' }],
        },
      ],
    });
    const answer = second.content.find((block) => block.type === 'text');

    expect(first.stop_reason).toBe('tool_use');
    expect(call?.name).toBe('get_weather');
    expect(call?.input).toEqual({ city: expect.any(String) });
    expect(second.stop_reason).toBe('end_turn');
    expect(answer?.text).toContain('sunny and 21 degrees');
  });

  it('streams a tool call whose input finalMessage() parses', async () => {
    const final = await client.messages
      .stream({
        model: 'qwen3:8b',
        max_tokens: 64,
        tools: [weather],
        messages: [{ role: 'user', content: 'call get_weather for Rome' }],
      })
      .finalMessage();
    const call = final.content.find((block) => block.type === 'tool_use');

    expect(final.stop_reason).toBe('tool_use');
    expect(call?.input).toEqual({ city: expect.any(String) });
  });

  it('auto-routes an unmapped Claude id by tier: haiku to a small loaded model, sonnet to a large one', async () => {
    const haiku = await client.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'quick one' }] })
      .withResponse();
    const sonnet = await client.messages
      .create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: [{ role: 'user', content: 'think hard' }] })
      .withResponse();

    expect(haiku.response.headers.get('x-fleet-model')).toBe('llama3.2:3b');
    expect(haiku.response.headers.get('x-fleet-requested-model')).toBe('claude-haiku-4-5');
    expect(haiku.response.headers.get('x-fleet-model-resolution')).toBe('auto');
    expect(haiku.data.content.some((block) => block.type === 'text')).toBe(true);
    expect(sonnet.response.headers.get('x-fleet-model')).toBe('qwen3:8b');
    expect(sonnet.response.headers.get('x-fleet-model-resolution')).toBe('auto');
  });

  it('sends a request with an image to a vision model', async () => {
    const { data, response } = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 64,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
              { type: 'text', text: 'what is in this picture' },
            ],
          },
        ],
      })
      .withResponse();

    expect(response.headers.get('x-fleet-model')).toBe('llava:7b');
    expect(response.headers.get('x-fleet-node')).toBe('v');
    expect(data.content[0]?.type === 'text' ? data.content[0].text : '').toContain('[1 image]');
  });

  it('ignores the query string: /v1/messages?beta=true is /v1/messages', async () => {
    const message = await client.messages.create(
      { model: 'llama3.2:3b', max_tokens: 64, messages: [{ role: 'user', content: 'beta client' }] },
      { query: { beta: 'true' } },
    );

    expect(message.content[0]?.type === 'text' ? message.content[0].text : '').toContain('beta client');
  });

  it("answers a bad request with 400 in Anthropic's error shape", async () => {
    const error = await client.messages
      .create({ model: 'llama3.2:3b', max_tokens: 0, messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('max_tokens') },
    });
  });

  it('reports a failure after the first byte as an error event, which the SDK throws', async () => {
    node.faults.dropMidStream(2);

    const failed = await client.messages
      .stream({ model: 'llama3.2:3b', max_tokens: 64, messages: [{ role: 'user', content: 'break this stream' }] })
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    await node.faults.reset();

    expect(failed).toBeInstanceOf(Anthropic.APIError);
    expect((failed as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'api_error' },
    });
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('answers messages.countTokens with the estimate the context layers use, for any model id', async () => {
    const counted = await client.messages.countTokens({
      model: 'claude-sonnet-4-5',
      system: 'tiktoken is great!',
      tools: [weather],
      messages: [
        { role: 'user', content: 'hello world' },
        { role: 'assistant', content: 'Hello, world!' },
      ],
    });

    // system 6 + user 2 + assistant 4, and the tool as the translator's JSON (`{"type":"function",…}`) 40.
    expect(counted).toEqual({ input_tokens: 6 + 2 + 4 + 40 });
  });

  it("answers a bad request with 400 in Anthropic's error shape", async () => {
    const error = await client.messages
      .countTokens({ model: 'claude-sonnet-4-5', messages: [] })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('messages') },
    });
  });
});

describe('POST /v1/messages with a model map, auto-routing off and API keys', () => {
  let strict: RouterProcess;

  beforeAll(async () => {
    strict = await startRouter({
      FLEET_NODES: `a=${node.url},v=${vision.url}`,
      FLEET_AUTO_ROUTE: 'false',
      FLEET_MODEL_MAP: 'claude-opus-4-1=qwen3:8b',
      FLEET_API_KEYS: 'sk-fleet-1,sk-fleet-2',
    });
    await eventually(async () => {
      const response = await fetch(`${strict.url}/api/ps`, { headers: { authorization: 'Bearer sk-fleet-1' } });
      const ps = (await response.json()) as { models: { name: string }[] };
      expect(ps.models.map((model) => model.name)).toEqual(expect.arrayContaining(['llama3.2:3b', 'qwen3:8b']));
    });
  }, 30_000);

  afterAll(async () => {
    await strict?.stop();
  });

  it("answers an id no node has and no map entry names with 404 in Anthropic's shape", async () => {
    const bearer = new Anthropic({ baseURL: strict.url, apiKey: 'sk-fleet-1', maxRetries: 0 });

    const error = await bearer.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).error).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: expect.stringContaining('claude-haiku-4-5') },
    });
  });

  it('routes a mapped id to its fleet model, with the key sent as x-api-key', async () => {
    const legacy = new Anthropic({
      baseURL: strict.url,
      apiKey: null,
      maxRetries: 0,
      defaultHeaders: { 'x-api-key': 'sk-fleet-2', authorization: null },
    });

    const { response } = await legacy.messages
      .create({ model: 'claude-opus-4-1', max_tokens: 64, messages: [{ role: 'user', content: 'mapped' }] })
      .withResponse();

    expect(response.headers.get('x-fleet-model')).toBe('qwen3:8b');
    expect(response.headers.get('x-fleet-requested-model')).toBe('claude-opus-4-1');
    expect(response.headers.get('x-fleet-model-resolution')).toBe('map');
  });

  it("refuses a wrong key with 401 in Anthropic's shape", async () => {
    const wrong = new Anthropic({ baseURL: strict.url, apiKey: 'sk-wrong', maxRetries: 0 });

    const error = await wrong.messages
      .create({ model: 'claude-opus-4-1', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: 'error',
      error: { type: 'authentication_error' },
    });
  });
});
