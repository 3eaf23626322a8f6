import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, readPngSize, type SimNode, startSimNode } from '../../../../emulator/sim';
import { parseLines, postJson, readLines, waitFor } from './helpers';

interface ChatLine {
  model: string;
  created_at: string;
  message: { role: string; content: string; thinking?: string; tool_calls?: ToolCall[] };
  done: boolean;
  done_reason?: string;
  total_duration?: number;
  load_duration?: number;
  prompt_eval_count?: number;
  prompt_eval_duration?: number;
  eval_count?: number;
  eval_duration?: number;
}

interface ToolCall {
  id: string;
  function: { index: number; name: string; arguments: Record<string, unknown> };
}

const METRICS = [
  'total_duration',
  'load_duration',
  'prompt_eval_count',
  'prompt_eval_duration',
  'eval_count',
  'eval_duration',
] as const;

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
    },
  },
};

const models = CATALOG.filter((m) =>
  ['llama3.2:3b', 'qwen3:8b', 'gemma3:12b', 'nomic-embed-text:latest', 'x/z-image-turbo:latest'].includes(m.name),
);

describe('simulated Ollama node', () => {
  let node: SimNode;

  beforeAll(async () => {
    node = await startSimNode({
      id: 'test-node',
      models,
      loaded: ['llama3.2:3b'],
      ttftMs: 40,
      tokensPerSecond: 50,
      loadMs: 60,
      utcOffsetMinutes: 120,
      pullStepMs: 2,
    });
  });

  afterAll(async () => {
    await node.close();
  });

  describe('probes and listings', () => {
    it('answers GET and HEAD / with "Ollama is running"', async () => {
      const get = await fetch(`${node.url}/`);
      const head = await fetch(`${node.url}/`, { method: 'HEAD' });
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await get.text()).toBe('Ollama is running');
      expect(head.status).toBe(200);
    });

    it('reports a plain dotted version', async () => {
      const res = await fetch(`${node.url}/api/version`);
      expect(await res.json()).toEqual({ version: '0.12.6' });
    });

    it('lists every model in /api/tags with the full Ollama shape', async () => {
      const body = (await (await fetch(`${node.url}/api/tags`)).json()) as { models: Record<string, unknown>[] };
      expect(body.models).toHaveLength(5);
      const qwen = body.models.find((m) => m['name'] === 'qwen3:8b');
      expect(qwen).toEqual({
        name: 'qwen3:8b',
        model: 'qwen3:8b',
        modified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+02:00$/),
        size: 5_225_387_923,
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        details: {
          parent_model: '',
          format: 'gguf',
          family: 'qwen3',
          families: ['qwen3'],
          parameter_size: '8.2B',
          quantization_level: 'Q4_K_M',
        },
        capabilities: ['completion', 'tools', 'thinking'],
      });
    });

    it('keeps digests stable across nodes', async () => {
      const other = await startSimNode({ models });
      const digests = async (n: SimNode) => {
        const body = (await (await fetch(`${n.url}/api/tags`)).json()) as {
          models: { name: string; digest: string }[];
        };
        return Object.fromEntries(body.models.map((m) => [m.name, m.digest]));
      };
      expect(await digests(other)).toEqual(await digests(node));
      await other.close();
    });

    it('lists hot models in /api/ps with expiry about five minutes ahead in local time', async () => {
      const body = (await (await fetch(`${node.url}/api/ps`)).json()) as { models: Record<string, unknown>[] };
      const llama = body.models.find((m) => m['name'] === 'llama3.2:3b');
      expect(llama).toMatchObject({
        model: 'llama3.2:3b',
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        context_length: 4096,
        details: { family: 'llama', parameter_size: '3.2B' },
      });
      expect(llama?.['size_vram']).toBe(llama?.['size']);
      expect(Number(llama?.['size'])).toBeGreaterThan(2_019_393_189);
      const expires = String(llama?.['expires_at']);
      expect(expires).toMatch(/\+02:00$/);
      const ahead = Date.parse(expires) - Date.now();
      expect(ahead).toBeGreaterThan(4 * 60_000);
      expect(ahead).toBeLessThanOrEqual(5 * 60_000);
    });

    it('shows a model with model_info, capabilities and template', async () => {
      const res = await postJson(`${node.url}/api/show`, { model: 'qwen3:8b' });
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status).toBe(200);
      expect(body['capabilities']).toEqual(['completion', 'tools', 'thinking']);
      expect(body['model_info']).toMatchObject({
        'general.architecture': 'qwen3',
        'general.basename': 'Qwen3',
        'general.parameter_count': 8_190_735_360,
        'qwen3.context_length': 40_960,
        'qwen3.embedding_length': 4096,
      });
      expect(body['details']).toMatchObject({ family: 'qwen3', quantization_level: 'Q4_K_M' });
      for (const key of ['license', 'modelfile', 'parameters', 'template', 'modified_at']) {
        expect(typeof body[key]).toBe('string');
      }
    });

    it('accepts the legacy name field on /api/show and answers 400 and 404 like Ollama', async () => {
      expect((await postJson(`${node.url}/api/show`, { name: 'gemma3:12b' })).status).toBe(200);
      const missing = await postJson(`${node.url}/api/show`, {});
      expect(missing.status).toBe(400);
      expect(await missing.json()).toEqual({ error: 'model is required' });
      const unknown = await postJson(`${node.url}/api/show`, { model: 'nope:1b' });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: "model 'nope:1b' not found" });
    });
  });

  describe('chat and generate', () => {
    it('streams chat token by token as separate chunks over time, then the done line with metrics', async () => {
      const started = performance.now();
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'llama3.2:3b',
        messages: [{ role: 'user', content: 'hello world' }],
      });
      expect(res.headers.get('content-type')).toBe('application/x-ndjson');
      const { lines, arrivals, reads } = await readLines(res, started);
      const chunks = parseLines<ChatLine>(lines);
      expect(chunks).toHaveLength(13);
      expect(reads).toBeGreaterThanOrEqual(6);
      expect(arrivals[0]).toBeGreaterThanOrEqual(35);
      expect((arrivals[12] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThan(150);
      const text = chunks.map((c) => c.message.content).join('');
      expect(text.startsWith('Echo: hello world')).toBe(true);
      expect(text.endsWith('.')).toBe(true);
      const last = chunks[12];
      expect(last).toMatchObject({ done: true, done_reason: 'stop', eval_count: 12, message: { content: '' } });
      for (const key of METRICS) expect(Number.isInteger(last?.[key])).toBe(true);
      expect(last?.total_duration).toBeGreaterThan(200_000_000);
      expect(chunks.slice(0, 12).every((c) => c.done === false && c.done_reason === undefined)).toBe(true);
    });

    it('answers stream:false with one object holding the whole deterministic message', async () => {
      const ask = async () =>
        (await (
          await postJson(`${node.url}/api/chat`, {
            model: 'llama3.2:3b',
            stream: false,
            messages: [{ role: 'user', content: 'hello world' }],
            options: { num_predict: 4 },
          })
        ).json()) as ChatLine;
      const first = await ask();
      const second = await ask();
      expect(first.message.content).toBe(second.message.content);
      expect(first.message.content.split(' ')).toHaveLength(4);
      expect(first).toMatchObject({ done: true, done_reason: 'length', eval_count: 4 });
    });

    it('stops at num_predict with done_reason "length"', async () => {
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'llama3.2:3b',
        messages: [{ role: 'user', content: 'count' }],
        options: { num_predict: 3 },
      });
      const chunks = parseLines<ChatLine>((await readLines(res)).lines);
      expect(chunks).toHaveLength(4);
      expect(chunks[3]).toMatchObject({ done: true, done_reason: 'length', eval_count: 3 });
    });

    it('ends its answer on its own when the budget is far larger, as a real model does', async () => {
      // The Vercel AI SDK's Anthropic provider sends max_tokens 64000: a budget, not a length to fill.
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'llama3.2:3b',
        stream: false,
        messages: [{ role: 'user', content: 'hello world' }],
        options: { num_predict: 64_000 },
      });
      const body = (await res.json()) as ChatLine;
      expect(body).toMatchObject({ done: true, done_reason: 'stop', eval_count: 12 });
      expect(body.message.content.startsWith('Echo: hello world')).toBe(true);
      expect(body.message.content.endsWith('.')).toBe(true);
    });

    it('answers at the length the prompt asks for in words, cut by a smaller budget', async () => {
      const ask = async (numPredict?: number) =>
        (await (
          await postJson(`${node.url}/api/generate`, {
            model: 'llama3.2:3b',
            stream: false,
            prompt: 'describe the fleet in 30 words',
            ...(numPredict === undefined ? {} : { options: { num_predict: numPredict } }),
          })
        ).json()) as { response: string; done_reason: string; eval_count: number };
      const whole = await ask();
      expect(whole).toMatchObject({ done_reason: 'stop', eval_count: 30 });
      expect(whole.response.split(' ')).toHaveLength(30);
      expect(await ask(20)).toMatchObject({ done_reason: 'length', eval_count: 20 });
    });

    it('streams thinking before content for thinking models, and none with think:false', async () => {
      const ask = async (think?: boolean) => {
        const res = await postJson(`${node.url}/api/chat`, {
          model: 'qwen3:8b',
          stream: false,
          ...(think === undefined ? {} : { think }),
          messages: [{ role: 'user', content: 'why is the sky blue' }],
        });
        return (await res.json()) as ChatLine;
      };
      const thinking = await ask();
      expect(thinking.message.thinking).toBe('The user wrote "why is the sky". I will echo it back.');
      expect(thinking.message.content.startsWith('Echo: why is the sky blue')).toBe(true);
      const plain = await ask(false);
      expect(plain.message.thinking).toBeUndefined();
      expect(plain.eval_count).toBe(12);
    });

    it('orders thinking chunks before content chunks in a stream', async () => {
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'qwen3:8b',
        messages: [{ role: 'user', content: 'hi' }],
        options: { num_predict: 11 },
      });
      const chunks = parseLines<ChatLine>((await readLines(res)).lines);
      const kinds = chunks.slice(0, -1).map((c) => (c.message.thinking === undefined ? 'content' : 'thinking'));
      expect(kinds).toEqual([...Array(9).fill('thinking'), 'content', 'content']);
    });

    it('rejects think:true on a model without thinking', async () => {
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'llama3.2:3b',
        think: true,
        messages: [{ role: 'user', content: 'x' }],
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: '"llama3.2:3b" does not support thinking' });
    });

    it('emits one whole tool call when the prompt names a tool', async () => {
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'qwen3:8b',
        think: false,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'Use get_weather for Tokyo' }],
      });
      const chunks = parseLines<ChatLine>((await readLines(res)).lines);
      expect(chunks).toHaveLength(2);
      const calls = chunks[0]?.message.tool_calls;
      expect(calls).toHaveLength(1);
      expect(calls?.[0]?.id).toMatch(/^call_[a-z0-9]{8}$/);
      expect(calls?.[0]?.function).toEqual({
        index: 0,
        name: 'get_weather',
        // Only the required argument: a model leaves out the optional ones it has no use for.
        arguments: { city: 'Tokyo' },
      });
      expect(chunks[1]).toMatchObject({ done: true, done_reason: 'stop' });
    });

    it("answers a tool's result in text, echoing it, instead of calling the tool again", async () => {
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'qwen3:8b',
        stream: false,
        think: false,
        tools: [WEATHER_TOOL],
        messages: [
          { role: 'user', content: 'Use get_weather for Tokyo' },
          { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: {} } }] },
          { role: 'tool', content: 'sunny and 21 degrees', tool_name: 'get_weather' },
        ],
      });
      const body = (await res.json()) as ChatLine;

      expect(body.message.tool_calls).toBeUndefined();
      expect(body.message.content.startsWith('Echo: sunny and 21 degrees')).toBe(true);
    });

    it('answers in text when no tool is named, and 400 when the model lacks tools', async () => {
      const text = await postJson(`${node.url}/api/chat`, {
        model: 'qwen3:8b',
        stream: false,
        think: false,
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'just chat' }],
      });
      const body = (await text.json()) as ChatLine;
      expect(body.message.tool_calls).toBeUndefined();
      expect(body.message.content.startsWith('Echo: just chat')).toBe(true);
      const refused = await postJson(`${node.url}/api/chat`, {
        model: 'gemma3:12b',
        tools: [WEATHER_TOOL],
        messages: [{ role: 'user', content: 'get_weather' }],
      });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: 'registry.ollama.ai/library/gemma3:12b does not support tools',
      });
    });

    it('answers valid JSON under format, shaped by a JSON Schema', async () => {
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'llama3.2:3b',
        stream: false,
        format: { type: 'object', properties: { city: { type: 'string' }, population: { type: 'integer' } } },
        messages: [{ role: 'user', content: 'Largest city in Japan' }],
      });
      const body = (await res.json()) as ChatLine;
      expect(JSON.parse(body.message.content)).toEqual({ city: 'Largest city in Japan', population: 3 });
      expect(body.done_reason).toBe('stop');
    });

    it('mentions attached images on vision models', async () => {
      const res = await postJson(`${node.url}/api/chat`, {
        model: 'gemma3:12b',
        stream: false,
        messages: [{ role: 'user', content: 'describe', images: ['aGVsbG8='] }],
      });
      const body = (await res.json()) as ChatLine;
      expect(body.message.content.startsWith('Echo: [1 image] describe')).toBe(true);
    });

    it('answers the Ollama errors for missing, unknown and embedding-only models', async () => {
      const cases: [unknown, number, string][] = [
        [{ messages: [] }, 400, 'model is required'],
        [{ model: 'ghost:7b', messages: [] }, 404, "model 'ghost:7b' not found"],
        [
          { model: 'nomic-embed-text', messages: [{ role: 'user', content: 'x' }] },
          400,
          '"nomic-embed-text" does not support chat',
        ],
      ];
      for (const [body, status, error] of cases) {
        const res = await postJson(`${node.url}/api/chat`, body);
        expect(res.status).toBe(status);
        expect(await res.json()).toEqual({ error });
      }
    });

    it('loads a cold model for empty messages (slower by loadMs) and unloads with keep_alive 0', async () => {
      node.unload('gemma3:12b');
      const started = performance.now();
      const load = await postJson(`${node.url}/api/chat`, { model: 'gemma3:12b', messages: [] });
      expect(performance.now() - started).toBeGreaterThanOrEqual(55);
      expect(await load.json()).toMatchObject({
        done: true,
        done_reason: 'load',
        message: { role: 'assistant', content: '' },
      });
      expect(node.snapshot().loaded.map((m) => m.name)).toContain('gemma3:12b');
      const unload = await postJson(`${node.url}/api/chat`, { model: 'gemma3:12b', messages: [], keep_alive: 0 });
      expect(await unload.json()).toMatchObject({ done_reason: 'unload' });
      expect(node.snapshot().loaded.map((m) => m.name)).not.toContain('gemma3:12b');
    });

    it('reports the load time of a cold model in load_duration', async () => {
      node.unload('qwen3:8b');
      const res = await postJson(`${node.url}/api/generate`, {
        model: 'qwen3:8b',
        prompt: 'warm up',
        think: false,
        stream: false,
        options: { num_predict: 1 },
      });
      const body = (await res.json()) as Record<string, number>;
      expect(body['load_duration']).toBeGreaterThanOrEqual(60_000_000);
      expect(node.snapshot().loaded.map((m) => m.name)).toContain('qwen3:8b');
    });

    it('generates with response chunks and a final line carrying context', async () => {
      const res = await postJson(`${node.url}/api/generate`, {
        model: 'llama3.2:3b',
        prompt: 'tell me a story',
        options: { num_predict: 5 },
      });
      const lines = parseLines((await readLines(res)).lines);
      expect(lines).toHaveLength(6);
      expect(
        lines
          .slice(0, 5)
          .map((l) => l['response'])
          .join(''),
      ).toBe(`Echo: tell me a story`.split(' ').slice(0, 5).join(' '));
      const last = lines[5] ?? {};
      expect(last).toMatchObject({ done: true, done_reason: 'length', response: '' });
      expect(Array.isArray(last['context'])).toBe(true);
      for (const key of METRICS) expect(Number.isInteger(last[key])).toBe(true);
    });

    it('answers an empty generate prompt with a load response', async () => {
      const res = await postJson(`${node.url}/api/generate`, { model: 'llama3.2:3b', prompt: '' });
      expect(await res.json()).toMatchObject({ response: '', done: true, done_reason: 'load' });
    });

    it('generates a PNG through /api/generate for an Ollama-native image model', async () => {
      const res = await postJson(`${node.url}/api/generate`, {
        model: 'x/z-image-turbo',
        prompt: 'a red fox',
        width: 64,
        height: 48,
        steps: 3,
      });
      const lines = parseLines((await readLines(res)).lines);
      expect(lines.slice(0, 3).map((l) => l['completed'])).toEqual([1, 2, 3]);
      expect(lines[0]).toMatchObject({ total: 3, done: false });
      const last = lines[3] ?? {};
      expect(last).toMatchObject({ done: true, done_reason: 'stop' });
      expect(readPngSize(Buffer.from(String(last['image']), 'base64'))).toEqual({ width: 64, height: 48 });
    });

    it('stops producing tokens when the client disconnects', async () => {
      const controller = new AbortController();
      const res = await postJson(
        `${node.url}/api/chat`,
        { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'a long answer in 500 words' }] },
        { signal: controller.signal },
      );
      const reader = res.body?.getReader();
      await reader?.read();
      expect(node.snapshot().requestsActive).toBe(1);
      controller.abort();
      await waitFor(() => node.snapshot().requestsActive === 0, 1000);
    });

    it('counts overlapping requests out as they end, whether they finish or the client leaves', async () => {
      const chat = (content: string, signal?: AbortSignal) =>
        postJson(
          `${node.url}/api/chat`,
          { model: 'llama3.2:3b', messages: [{ role: 'user', content }], stream: false, options: { num_predict: 5 } },
          signal === undefined ? {} : { signal },
        );
      const controller = new AbortController();
      const left = chat('left', controller.signal).catch(() => undefined);
      const finished = [chat('one'), chat('two')];
      await waitFor(() => node.snapshot().requestsActive === 3, 1000);
      controller.abort();
      await Promise.all([left, ...finished]);

      await waitFor(() => node.snapshot().requestsActive === 0, 1000);
    });

    it('records the requests it received', async () => {
      await postJson(`${node.url}/api/show`, { model: 'llama3.2:3b', verbose: false });
      const last = node.requests[node.requests.length - 1];
      expect(last).toMatchObject({ method: 'POST', path: '/api/show', body: { model: 'llama3.2:3b', verbose: false } });
    });
  });

  describe('embeddings', () => {
    const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

    it('returns L2-normalised deterministic vectors of the model width', async () => {
      const ask = async () =>
        (await (
          await postJson(`${node.url}/api/embed`, { model: 'nomic-embed-text', input: ['alpha beta', 'gamma'] })
        ).json()) as { model: string; embeddings: number[][]; prompt_eval_count: number; total_duration: number };
      const first = await ask();
      const second = await ask();
      expect(first.model).toBe('nomic-embed-text');
      expect(first.embeddings).toHaveLength(2);
      expect(first.embeddings[0]).toHaveLength(768);
      for (const vector of first.embeddings) expect(norm(vector)).toBeCloseTo(1, 6);
      expect(second.embeddings).toEqual(first.embeddings);
      expect(first.embeddings[0]).not.toEqual(first.embeddings[1]);
      expect(Number.isInteger(first.total_duration)).toBe(true);
      expect(first.prompt_eval_count).toBeGreaterThan(0);
    });

    it('cuts vectors to dimensions and re-normalises them', async () => {
      const res = await postJson(`${node.url}/api/embed`, { model: 'nomic-embed-text', input: 'x', dimensions: 256 });
      const body = (await res.json()) as { embeddings: number[][] };
      expect(body.embeddings[0]).toHaveLength(256);
      expect(norm(body.embeddings[0] ?? [])).toBeCloseTo(1, 6);
    });

    it('answers the legacy /api/embeddings with one unnormalised vector', async () => {
      const res = await postJson(`${node.url}/api/embeddings`, { model: 'nomic-embed-text', prompt: 'hello' });
      const body = (await res.json()) as { embedding: number[] };
      expect(body.embedding).toHaveLength(768);
      expect(norm(body.embedding)).toBeGreaterThan(2);
    });

    it('rejects a bad input type and unknown models', async () => {
      const bad = await postJson(`${node.url}/api/embed`, { model: 'nomic-embed-text', input: 42 });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: 'invalid input type' });
      expect((await postJson(`${node.url}/api/embed`, { model: 'nope', input: 'x' })).status).toBe(404);
    });
  });

  describe('pull and delete', () => {
    it('streams pull progress in Ollama order and then lists the model', async () => {
      const res = await postJson(`${node.url}/api/pull`, { model: 'phi4:14b' });
      const lines = parseLines((await readLines(res)).lines);
      const statuses = lines.map((l) => String(l['status']));
      expect(statuses[0]).toBe('pulling manifest');
      expect(statuses.slice(-3)).toEqual(['verifying sha256 digest', 'writing manifest', 'success']);
      const layer = lines.filter((l) => l['digest'] === lines[1]?.['digest']);
      expect(String(layer[0]?.['status'])).toMatch(/^pulling [0-9a-f]{12}$/);
      expect(String(layer[0]?.['digest'])).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(layer[0]?.['completed']).toBeUndefined();
      const completed = layer.slice(1).map((l) => Number(l['completed']));
      expect(completed.length).toBeGreaterThan(2);
      expect([...completed].sort((a, b) => a - b)).toEqual(completed);
      expect(completed[completed.length - 1]).toBe(layer[0]?.['total']);
      const tags = (await (await fetch(`${node.url}/api/tags`)).json()) as { models: { name: string; size: number }[] };
      const pulled = tags.models.find((m) => m.name === 'phi4:14b');
      expect(pulled?.size).toBeGreaterThan(5e9);
    });

    it('answers stream:false pulls with a single success', async () => {
      const res = await postJson(`${node.url}/api/pull`, { name: 'tinyllama', stream: false });
      expect(await res.json()).toEqual({ status: 'success' });
      const show = await postJson(`${node.url}/api/show`, { model: 'tinyllama:latest' });
      expect(show.status).toBe(200);
    });

    it('deletes a model and answers 404 for a second delete', async () => {
      const first = await fetch(`${node.url}/api/delete`, {
        method: 'DELETE',
        body: JSON.stringify({ model: 'tinyllama' }),
      });
      expect(first.status).toBe(200);
      expect(await first.text()).toBe('');
      const second = await fetch(`${node.url}/api/delete`, {
        method: 'DELETE',
        body: JSON.stringify({ model: 'tinyllama' }),
      });
      expect(second.status).toBe(404);
      expect(await second.json()).toEqual({ error: "model 'tinyllama' not found" });
    });

    it('copies a model under a new name as Ollama does: 200 empty, 404 for an unknown source, 400 without a name', async () => {
      const copied = await postJson(`${node.url}/api/copy`, { source: 'llama3.2:3b', destination: 'my-llama' });
      const unknown = await postJson(`${node.url}/api/copy`, { source: 'nope', destination: 'x' });
      const nameless = await postJson(`${node.url}/api/copy`, { source: 'llama3.2:3b' });
      const tags = (await (await fetch(`${node.url}/api/tags`)).json()) as { models: { name: string }[] };

      expect(copied.status).toBe(200);
      expect(await copied.text()).toBe('');
      expect(tags.models.map((m) => m.name)).toEqual(expect.arrayContaining(['llama3.2:3b', 'my-llama:latest']));
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: 'model "nope" not found' });
      expect(nameless.status).toBe(400);
      expect(await nameless.json()).toEqual({ error: 'destination "" is invalid' });
    });
  });
});
