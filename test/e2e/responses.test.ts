/**
 * `/v1/responses` end to end, as Codex and the official `openai` SDK call it: the built emulator,
 * simulated nodes, whole and streamed responses, a function-call round trip, unmapped model ids
 * auto-routed to a loaded model, and the stateless refusal of `previous_response_id`.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let node: SimNode;
let router: RouterProcess;
let openai: OpenAI;

const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

beforeAll(async () => {
  const models = CATALOG.filter((entry) => ['llama3.2:3b', 'qwen3:8b'].includes(entry.name));
  node = await startSimNode({
    id: 'a',
    models,
    loaded: ['llama3.2:3b', 'qwen3:8b'],
    ttftMs: 10,
    tokensPerSecond: 2000,
  });
  router = await startRouter({ FLEET_NODES: `a=${node.url}` });
  openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  await eventually(async () => {
    const ps = (await (await fetch(`${router.url}/api/ps`)).json()) as { models: { name: string }[] };
    expect(ps.models.map((model) => model.name)).toEqual(expect.arrayContaining(['llama3.2:3b', 'qwen3:8b']));
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
});

describe('POST /v1/responses', () => {
  it('answers responses.create with a response object, stored nowhere', async () => {
    const response = await openai.responses.create({
      model: 'llama3.2:3b',
      instructions: 'You are terse.',
      input: 'hello from responses',
      max_output_tokens: 24,
    });

    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toContain('hello from responses');
    expect(response).toMatchObject({ store: false, previous_response_id: null });
    // The simulated model ends its answer on its own, well inside the budget.
    expect(response.status).toBe('completed');
    expect(response.incomplete_details).toBeNull();
    expect(response.usage?.output_tokens).toBe(12);
  });

  it('says incomplete, max_output_tokens, when the budget is smaller than the answer', async () => {
    const response = await openai.responses.create({ model: 'llama3.2:3b', input: 'cut me', max_output_tokens: 4 });

    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.usage?.output_tokens).toBe(4);
  });

  it('streams, and responses.stream().finalResponse() rebuilds the response from the events', async () => {
    const deltas: string[] = [];
    const stream = openai.responses.stream({ model: 'llama3.2:3b', input: 'stream this please' });
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();

    expect(deltas.length).toBeGreaterThan(3);
    expect(final.output_text).toBe(deltas.join(''));
    expect(final.output_text).toContain('stream this please');
    expect(final.status).toBe('completed');
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
  });

  it('streams events numbered from 0 with the event-stream type and the routing headers', async () => {
    const { data, response } = await openai.responses
      .create({ model: 'llama3.2:3b', input: 'number the events', stream: true })
      .withResponse();
    const events: { type: string; sequence_number: number }[] = [];
    for await (const event of data) events.push(event);

    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-fleet-node')).toBe('a');
    expect(response.headers.get('x-fleet-model-resolution')).toBe('fleet');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.type).toBe('response.completed');
  });

  it('runs a function-call round trip: function_call, then an answer to its output', async () => {
    const input: ResponseInputItem[] = [{ role: 'user', content: 'call get_weather for Paris' }];
    const first = await openai.responses.create({ model: 'qwen3:8b', input, tools: [weather], max_output_tokens: 64 });
    const call = first.output.find((item) => item.type === 'function_call');
    const second = await openai.responses.create({
      model: 'qwen3:8b',
      tools: [weather],
      max_output_tokens: 64,
      input: [
        ...input,
        ...(first.output as ResponseInputItem[]),
        { type: 'function_call_output', call_id: call?.call_id ?? '', output: 'sunny and 21 degrees' },
      ],
    });

    expect(call?.name).toBe('get_weather');
    expect(JSON.parse(call?.arguments ?? '')).toEqual({ city: expect.any(String) });
    expect(second.output.some((item) => item.type === 'function_call')).toBe(false);
    expect(second.output_text).toContain('sunny and 21 degrees');
  });

  it('auto-routes an unmapped id to the largest loaded model, and says so in the headers', async () => {
    const { data, response } = await openai.responses
      .create({ model: 'gpt-5-codex', input: 'which model', max_output_tokens: 16, reasoning: { effort: 'none' } })
      .withResponse();

    expect(response.headers.get('x-fleet-model')).toBe('qwen3:8b');
    expect(response.headers.get('x-fleet-requested-model')).toBe('gpt-5-codex');
    expect(response.headers.get('x-fleet-model-resolution')).toBe('auto');
    expect(data.model).toBe('qwen3:8b');
  });

  it('refuses previous_response_id with a 400 naming it: the router stores nothing', async () => {
    const error = await openai.responses
      .create({ model: 'llama3.2:3b', input: 'and then?', previous_response_id: 'resp_earlier' })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('store: false');
  });

  it('reports a failure after the first byte in band, which the SDK throws', async () => {
    node.faults.dropMidStream(2);

    const failed = await openai.responses
      .stream({ model: 'llama3.2:3b', input: 'break this stream' })
      .finalResponse()
      .catch((thrown: unknown) => thrown);
    await node.faults.reset();

    expect(failed).toBeInstanceOf(OpenAI.APIError);
  });
});
