/**
 * Context protection end to end (issue 20 item 10): the built emulator, a simulated Ollama node that
 * loads models with Ollama's default 4,096-token context, reports `context_length` in `/api/ps` and
 * `model_info` in `/api/show`, and reloads a model for an `options.num_ctx`. A Claude Code-sized first
 * request (~26k tokens: system prompt and tools) is sent with a `num_ctx` that holds it; once the node
 * runs the model with that context, the next one goes as it is. A prompt far over the model's own
 * maximum is refused in each family's shape before any node is asked.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let node: SimNode;
let router: RouterProcess;
let anthropic: Anthropic;

/** `tokens` cl100k tokens: `hello`, then ` hello` (one token each). */
const text = (tokens: number) => `hello${' hello'.repeat(tokens - 1)}`;

/** What Claude Code opens a session with: a long system prompt and tools with long descriptions. */
const tools: Anthropic.Tool[] = ['Read', 'Edit', 'Bash', 'Grep'].map((name) => ({
  name,
  description: text(2000),
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
}));
const firstTurn = {
  model: 'llama3.2:3b',
  max_tokens: 1024,
  system: text(18_000),
  tools,
  messages: [{ role: 'user' as const, content: 'Fix the failing test.' }],
};

interface NodeChat {
  readonly options?: { readonly num_ctx?: number };
}

function chatsSent(): NodeChat[] {
  return node.requests.filter((request) => request.path === '/api/chat').map((request) => request.body as NodeChat);
}

beforeAll(async () => {
  node = await startSimNode({
    id: 'a',
    models: CATALOG.filter((entry) => ['llama3.2:3b', 'qwen3:8b'].includes(entry.name)),
    loaded: ['llama3.2:3b'],
    ttftMs: 5,
    tokensPerSecond: 5000,
  });
  router = await startRouter({ FLEET_NODES: `a=${node.url}` });
  anthropic = new Anthropic({ baseURL: router.url, apiKey: 'unused', maxRetries: 0 });
  await eventually(async () => {
    const ps = (await (await fetch(`${router.url}/api/ps`)).json()) as { models: { name: string }[] };
    expect(ps.models.map((model) => model.name)).toEqual(['llama3.2:3b']);
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
});

describe('context protection', () => {
  it('asks the node for a context that holds a 26k-token first request, then leaves it as loaded', async () => {
    const { data: message, response } = await anthropic.messages.create(firstTurn).withResponse();
    const [sent] = chatsSent().slice(-1);

    expect(response.headers.get('x-fleet-context')).toBe('num_ctx=32768 (loaded 4096)');
    expect(response.headers.get('x-fleet-context-overflow')).toBeNull();
    expect(sent?.options?.num_ctx).toBe(32_768);
    // The node read the whole prompt: at the 4,096 it had loaded, it would have cut it there.
    expect(message.usage.input_tokens).toBeGreaterThan(26_000);
    expect(node.snapshot().loaded).toEqual([expect.objectContaining({ name: 'llama3.2:3b', contextLength: 32_768 })]);

    // The router learns the new context from the node's /api/ps; from then on the request fits as it is.
    await eventually(async () => {
      const ps = (await (await fetch(`${router.url}/api/ps`)).json()) as { models: { context_length?: number }[] };
      expect(ps.models[0]?.context_length).toBe(32_768);
    });
    const again = await anthropic.messages.create(firstTurn).withResponse();
    const [resent] = chatsSent().slice(-1);

    expect(again.response.headers.get('x-fleet-context')).toBe('fits');
    expect(resent).toBeDefined();
    expect(resent?.options?.num_ctx).toBeUndefined();
  });

  it('refuses a prompt far over the model maximum in each family, asking no node', async () => {
    // qwen3:8b holds 40,960 tokens; 70,000 is more than 1.5 times that.
    const prompt = text(70_000);
    const before = chatsSent().length;
    const openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });

    const anthropicError = await anthropic.messages
      .create({ model: 'qwen3:8b', max_tokens: 64, messages: [{ role: 'user', content: prompt }] })
      .catch((error: unknown) => error);
    const openaiError = await openai.chat.completions
      .create({ model: 'qwen3:8b', messages: [{ role: 'user', content: prompt }] })
      .catch((error: unknown) => error);
    const ollama = await fetch(`${router.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'qwen3:8b', stream: false, messages: [{ role: 'user', content: prompt }] }),
    });

    expect(anthropicError).toBeInstanceOf(Anthropic.BadRequestError);
    expect((anthropicError as InstanceType<typeof Anthropic.BadRequestError>).error).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(/^prompt is too long: 70000 tokens > 40960 maximum\b/),
      },
    });
    expect(openaiError).toBeInstanceOf(OpenAI.BadRequestError);
    expect((openaiError as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
    expect(ollama.status).toBe(400);
    expect(await ollama.json()).toEqual({ error: expect.stringMatching(/^prompt is too long: \d+ tokens > 40960/) });
    expect(chatsSent().length).toBe(before);
  });
});

describe('routing by context', () => {
  let small: SimNode;
  let large: SimNode;
  let fleet: RouterProcess;

  beforeAll(async () => {
    const options = {
      models: CATALOG.filter((entry) => entry.name === 'llama3.2:3b'),
      ttftMs: 5,
      tokensPerSecond: 5000,
    };
    small = await startSimNode({ ...options, id: 'small', loaded: ['llama3.2:3b'] });
    large = await startSimNode({ ...options, id: 'large' });
    // Loaded the way Ollama loads a model for a client that asks for a context: an empty chat with num_ctx.
    await fetch(`${large.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2:3b', messages: [], options: { num_ctx: 32_768 } }),
    });
    fleet = await startRouter({ FLEET_NODES: `a=${small.url},b=${large.url}` });
    await eventually(async () => {
      const ps = (await (await fetch(`${fleet.url}/api/ps`)).json()) as { models: { context_length?: number }[] };
      const contexts = ps.models.map((model) => model.context_length ?? 0).sort((a, b) => a - b);
      expect(contexts).toEqual([4096, 32_768]);
    });
  }, 30_000);

  afterAll(async () => {
    await fleet?.stop();
    await small?.close();
    await large?.close();
  });

  it('sends a 20k-token prompt to the node with the model loaded at 32768, not the one at 4096', async () => {
    // 80,000 characters: the router's estimate (four characters a token) is 20,000 tokens.
    const content = 'word '.repeat(16_000);
    const reply = await fetch(`${fleet.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2:3b', stream: false, messages: [{ role: 'user', content }] }),
    });

    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-fleet-node')).toBe('b');
    expect(reply.headers.get('x-fleet-context')).toBe('fits');
    expect(small.requests.filter((request) => request.path === '/api/chat')).toEqual([]);
    expect(large.snapshot().loaded).toEqual([expect.objectContaining({ contextLength: 32_768 })]);
  });
});
