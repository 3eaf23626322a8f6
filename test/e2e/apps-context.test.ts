/**
 * Per-tag analytics and context usage end to end: the built emulator routes chat from the official
 * `openai` client, tagged by `X-Service-Tags` and `user`, to a simulated node; `/dashboard/api/apps`,
 * `/apps/daily` and `/context-usage` then show the same requests and tokens the client was answered
 * with, and the context the node's `/api/ps` says its loaded copy runs with.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

const MODEL = 'llama3.2:3b';
let node: SimNode;
let router: RouterProcess;
let ollama: Ollama;
const usages: { prompt: number; completion: number; user: boolean }[] = [];

beforeAll(async () => {
  node = await startSimNode({
    id: 'a',
    models: CATALOG.filter((entry) => entry.name === MODEL),
    loaded: [MODEL],
    ttftMs: 5,
    tokensPerSecond: 500,
  });
  router = await startRouter({ FLEET_NODES: `a=${node.url}` });
  ollama = new Ollama({ host: router.url });
  await eventually(async () => expect((await ollama.list()).models.map((model) => model.name)).toContain(MODEL));
  const openai = new OpenAI({
    baseURL: `${router.url}/v1`,
    apiKey: 'unused',
    maxRetries: 0,
    defaultHeaders: { 'X-Service-Tags': 'e2e-app, nightly' },
  });
  const prompts = ['hello fleet', 'tell me about the tags of this request', 'one more'];
  for (const [index, content] of prompts.entries()) {
    const user = index < 2;
    const reply = await openai.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content }],
      ...(user ? { user: 'ann' } : {}),
    });
    usages.push({ prompt: reply.usage?.prompt_tokens ?? -1, completion: reply.usage?.completion_tokens ?? -1, user });
  }
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
});

const read = async (path: string) => {
  const reply = await fetch(`${router.url}${path}`);
  expect(reply.status).toBe(200);
  return (await reply.json()) as Record<string, unknown> & { data?: Record<string, unknown>[] };
};

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('per-tag analytics and context usage', () => {
  it('shows each tag with the requests and tokens the client was answered with', async () => {
    const prompt = sum(usages.map((usage) => usage.prompt));
    const completion = sum(usages.map((usage) => usage.completion));
    const ann = usages.filter((usage) => usage.user);

    // Eventually: a flush's counter updates land one by one.
    await eventually(async () => {
      const body = await read('/dashboard/api/apps');
      expect(body.data).toEqual([
        expect.objectContaining({
          tag: 'e2e-app',
          request_count: 3,
          completed_count: 3,
          total_prompt_tokens: prompt,
          total_completion_tokens: completion,
        }),
        expect.objectContaining({ tag: 'nightly', request_count: 3, total_tokens: prompt + completion }),
        expect.objectContaining({
          tag: 'user:ann',
          request_count: 2,
          total_prompt_tokens: sum(ann.map((usage) => usage.prompt)),
          total_completion_tokens: sum(ann.map((usage) => usage.completion)),
        }),
      ]);
    });
    const daily = await read('/dashboard/api/apps/daily');
    expect(daily.data?.map((day) => [day['tag'], day['request_count'], day['total_tokens']])).toEqual([
      ['e2e-app', 3, prompt + completion],
      ['nightly', 3, prompt + completion],
      ['user:ann', 2, sum(ann.map((usage) => usage.prompt + usage.completion))],
    ]);
  });

  it("shows the model's context usage against the context its loaded copy runs with", async () => {
    const prompts = usages.map((usage) => usage.prompt);

    const usage = await eventually(async () => {
      const body = (await read('/dashboard/api/context-usage')) as { models?: Record<string, unknown>[] };
      const [record] = body.models ?? [];
      expect(record?.['request_count']).toBe(3);
      return record;
    });
    const loaded = (await ollama.ps()).models.find((model) => model.name === MODEL);
    expect(Reflect.get(loaded ?? {}, 'context_length')).toBeGreaterThanOrEqual(4096);

    expect(usage).toMatchObject({
      model: MODEL,
      allocated_ctx: Reflect.get(loaded ?? {}, 'context_length'),
      request_count: 3,
      measured_requests: 3,
      prompt_tokens: { avg: Math.round(sum(prompts) / 3) },
      recommended_ctx: 4096,
    });
  });
});
