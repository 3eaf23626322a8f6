/**
 * Routed chat end to end, as users call it: the built emulator, simulated nodes that stream, and the
 * official `ollama` and `openai` clients — plain and streamed replies, tool calls, the X-Fleet-*
 * headers, retries on a failing node, and chunks arriving as the node produces them.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { outcomeWithin } from '../helpers/outcome-within';
import { eventually, type RouterProcess, startRouter } from './router-process';

let first: SimNode;
let second: SimNode;
let vision: SimNode;
let router: RouterProcess;
let ollama: Ollama;
let openai: OpenAI;

const catalog = (names: readonly string[]) => CATALOG.filter((entry) => names.includes(entry.name));
const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

beforeAll(async () => {
  const models = catalog(['llama3.2:3b', 'qwen3:8b']);
  first = await startSimNode({ id: 'a', models, loaded: ['llama3.2:3b'], ttftMs: 20, tokensPerSecond: 50 });
  second = await startSimNode({ id: 'b', models, loaded: ['llama3.2:3b'], ttftMs: 20, tokensPerSecond: 50 });
  vision = await startSimNode({ id: 'v', models: catalog(['llava:7b']), ttftMs: 20, tokensPerSecond: 50 });
  router = await startRouter({ FLEET_NODES: `a=${first.url},b=${second.url},v=${vision.url}` });
  ollama = new Ollama({ host: router.url });
  openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  await eventually(async () => {
    const { models: listed } = await ollama.list();
    expect(listed.map((model) => model.name)).toEqual(expect.arrayContaining(['qwen3:8b', 'llava:7b']));
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await first?.close();
  await second?.close();
  await vision?.close();
});

/** A 1×1 PNG, as clients attach images. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('routed chat', () => {
  it('answers /api/chat through the ollama client, whole and streamed', async () => {
    const whole = await ollama.chat({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hello fleet' }] });
    const parts: string[] = [];
    let last: { done: boolean; eval_count?: number } | undefined;
    for await (const part of await ollama.chat({
      model: 'llama3.2:3b',
      messages: [{ role: 'user', content: 'hello fleet' }],
      stream: true,
    })) {
      parts.push(part.message.content);
      last = part;
    }

    expect(whole.message.content).toContain('hello fleet');
    expect(whole.done).toBe(true);
    expect(parts.join('')).toBe(whole.message.content);
    expect(last?.done).toBe(true);
    expect(last?.eval_count).toBeGreaterThan(0);
  });

  it('answers /api/generate through the ollama client', async () => {
    const reply = await ollama.generate({ model: 'llama3.2:3b', prompt: 'say something' });

    expect(reply.response).toContain('say something');
    expect(reply.done_reason).toBe('stop');
  });

  it.each([
    ['a messages list with a null in it', 'llama3.2:3b', { messages: [null] }],
    [
      'messages with an image, to a model without vision',
      'llama3.2:3b',
      { messages: [{ role: 'user', images: [PIXEL] }] },
    ],
    ['tools, to a model without tools', 'llava:7b', { tools: [weather] }],
  ])('routes /api/generate by its own fields: %s is forwarded, never read', async (_case, model, extra) => {
    const response = await fetch(`${router.url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, prompt: 'say something', stream: false, ...extra }),
    });

    expect(response.status).toBe(200);
    expect(((await response.json()) as { response: string }).response).toContain('say something');
  });

  it('keeps thinking and tool calls in a non-streaming /api/chat answer', async () => {
    const reply = await ollama.chat({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'what is the get_weather in Paris' }],
      tools: [weather],
    });

    expect(reply.message.tool_calls?.[0]?.function.name).toBe('get_weather');
  });

  it('sends the routing headers and streams lines as the node produces them', async () => {
    const started = Date.now();
    const response = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'count to twelve' }] }),
    });
    const arrivals: number[] = [];
    const reader = response.body?.getReader();
    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) break;
      arrivals.push(Date.now() - started);
    }

    expect(response.headers.get('x-fleet-node')).toMatch(/^(a|b)$/);
    expect(Number(response.headers.get('x-fleet-score'))).toBeGreaterThan(0);
    expect(response.headers.get('x-fleet-affinity')).toMatch(/^(new|matched)$/);
    expect(response.headers.get('content-type')).toContain('application/x-ndjson');
    // Twelve tokens at 50 a second: the first arrives well before the last.
    expect(arrivals.length).toBeGreaterThan(3);
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThan(100);
  });

  it('goes back to the same node for the next turn of a conversation', async () => {
    const messages = [{ role: 'user', content: 'a conversation that should stick' }];
    const firstTurn = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2:3b', messages, stream: false }),
    });
    const node = firstTurn.headers.get('x-fleet-node');
    await firstTurn.json();

    const nextTurn = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'llama3.2:3b',
        stream: false,
        messages: [...messages, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'and again' }],
      }),
    });
    await nextTurn.json();

    expect(nextTurn.headers.get('x-fleet-node')).toBe(node);
    expect(nextTurn.headers.get('x-fleet-affinity')).toBe('matched');
  });

  it('retries on the other node when one fails before the first byte', async () => {
    // Equal nodes tie-break by id, so `a` is tried first; it fails, and `b` serves.
    first.faults.failNext(5, 500);

    const response = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'retry me' }], stream: false }),
    });
    await first.faults.reset();

    expect(response.status).toBe(200);
    expect(response.headers.get('x-fleet-node')).toBe('b');
    expect(response.headers.get('x-fleet-retries')).toBe('1');
  });

  it('falls back to the next model in fallback_models', async () => {
    const response = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'not-installed:7b',
        fallback_models: ['llama3.2:3b'],
        messages: [{ role: 'user', content: 'fallback' }],
        stream: false,
      }),
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-fleet-fallback')).toBe('llama3.2:3b');
    expect(((await response.json()) as { done: boolean }).done).toBe(true);
  });

  it('answers 404 naming the model when no node has it, and 400 without a model', async () => {
    const missing = await fetch(`${router.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nope:1b', messages: [{ role: 'user', content: 'x' }] }),
    });
    const noModel = await fetch(`${router.url}/api/chat`, { method: 'POST', body: JSON.stringify({ messages: [] }) });

    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain('nope:1b');
    expect(noModel.status).toBe(400);
    expect(await noModel.json()).toEqual({ error: 'model is required' });
  });

  it('answers /v1/chat/completions through the openai client', async () => {
    const completion = await openai.chat.completions.create({
      model: 'llama3.2:3b',
      messages: [{ role: 'user', content: 'hello from openai' }],
    });

    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.content).toContain('hello from openai');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('streams /v1/chat/completions, and the .stream() helper rebuilds the completion', async () => {
    const deltas: string[] = [];
    const ids = new Set<string>();
    const stream = await openai.chat.completions.create({
      model: 'llama3.2:3b',
      messages: [{ role: 'user', content: 'stream this please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: number | undefined;
    for await (const chunk of stream) {
      ids.add(chunk.id);
      deltas.push(chunk.choices[0]?.delta.content ?? '');
      if (chunk.usage !== null && chunk.usage !== undefined) usage = chunk.usage.total_tokens;
    }
    const helper = openai.chat.completions.stream({
      model: 'llama3.2:3b',
      messages: [{ role: 'user', content: 'stream this please' }],
    });
    const final = await helper.finalChatCompletion();

    expect(ids.size).toBe(1);
    expect(deltas.join('')).toContain('stream this please');
    expect(usage).toBeGreaterThan(0);
    expect(final.choices[0]?.message.content).toBe(deltas.join(''));
    expect(final.choices[0]?.finish_reason).toBe('stop');
  });

  it('returns tool calls to the openai client', async () => {
    const completion = await openai.chat.completions.create({
      model: 'qwen3:8b',
      messages: [{ role: 'user', content: 'call get_weather for Paris' }],
      tools: [weather],
    });

    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    expect(call?.type === 'function' ? call.function.name : undefined).toBe('get_weather');
    expect(typeof (call?.type === 'function' ? call.function.arguments : undefined)).toBe('string');
  });

  it('sends a request with images only to a vision model, and refuses images for a model without vision', async () => {
    const seeing = await openai.chat.completions.create({
      model: 'llava:7b',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is in this picture' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
          ],
        },
      ],
    });
    const blind = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'look', images: [PIXEL] }] }),
    });

    expect(seeing.choices[0]?.message.content).toContain('[1 image]');
    expect(vision.requests.some((request) => request.path === '/api/chat')).toBe(true);
    expect(blind.status).toBe(400);
    expect(((await blind.json()) as { error: string }).error).toContain('cannot serve this request');
  });

  it('stops the node and frees the slot when the client goes away mid-stream', async () => {
    const controller = new AbortController();
    const response = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      signal: controller.signal,
      body: JSON.stringify({
        model: 'llama3.2:3b',
        metadata: { tags: ['session:leaver'] },
        messages: [{ role: 'user', content: 'a long answer please, 400 words' }],
      }),
    });
    const node = response.headers.get('x-fleet-node');
    const serving = node === 'a' ? first : second;
    await response.body?.getReader().read();
    controller.abort();

    // The router hears the client leave, stops the node (whose stream had 8 s of tokens left) and frees
    // the slot in the same step; the node sees its request end (2 s bounds it, far below the 8 s left).
    expect(await outcomeWithin(serving.whenIdle(), 2000)).toBe('resolved');
    expect(serving.snapshot().requestsActive).toBe(0);

    // The session pins the next turn to the same node, which has one slot: it is answered at once.
    const started = Date.now();
    const next = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'llama3.2:3b',
        metadata: { tags: ['session:leaver'] },
        messages: [{ role: 'user', content: 'after' }],
        stream: false,
      }),
    });
    await next.json();

    expect(next.headers.get('x-fleet-node')).toBe(node);
    expect(next.headers.get('x-fleet-affinity')).toBe('matched');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('shows a stream in flight in /fleet/queue, counted by the instance that holds it', async () => {
    const controller = new AbortController();
    const response = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      signal: controller.signal,
      body: JSON.stringify({
        model: 'qwen3:8b',
        messages: [{ role: 'user', content: 'a slow one, 200 words' }],
      }),
    });
    const node = response.headers.get('x-fleet-node') ?? '';
    await response.body?.getReader().read();

    // The emulator is one instance: its view reads its own queues, with no publication to wait for.
    const seen = (await (await fetch(`${router.url}/fleet/queue`)).json()) as {
      queue_depth: number;
      queues: Record<string, { in_flight: number }>;
    };
    controller.abort();

    expect(seen.queues[`${node}:qwen3:8b`]?.in_flight).toBe(1);
    expect(seen.queue_depth).toBeGreaterThanOrEqual(1);
  });

  it('holds a node to one request at a time whichever API the clients speak', async () => {
    // Node `v` runs llava:7b one request at a time (it reports no parallelism).
    const ask = (path: string, body: object) =>
      fetch(`${router.url}${path}`, { method: 'POST', body: JSON.stringify(body) }).then(async (response) => {
        await response.text();
        return response.status;
      });
    const messages = [{ role: 'user', content: 'one at a time' }];
    let most = 0;
    const watch = setInterval(() => {
      most = Math.max(most, vision.snapshot().requestsActive);
    }, 2);
    try {
      const statuses = await Promise.all([
        ask('/api/chat', { model: 'llava:7b', stream: false, messages, options: { num_predict: 15 } }),
        ask('/v1/chat/completions', { model: 'llava:7b', messages, max_tokens: 15 }),
        ask('/v1/messages', { model: 'llava:7b', messages, max_tokens: 15 }),
      ]);

      expect(statuses).toEqual([200, 200, 200]);
    } finally {
      clearInterval(watch);
    }
    expect(most).toBe(1);
  });

  it('reports a failure after the first byte in band', async () => {
    first.faults.dropMidStream(2);
    second.faults.dropMidStream(2);

    const lines: string[] = [];
    const response = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'break this stream' }] }),
    });
    lines.push(...(await response.text()).trim().split('\n'));
    await first.faults.reset();
    await second.faults.reset();

    expect(response.status).toBe(200);
    expect(JSON.parse(lines.at(-1) ?? '{}').error).toMatch(/^node \S+ broke off its reply$/);
  });
});
