/**
 * The analytics views end to end (issue 22 item 11): traffic with tags through the official `openai` and
 * `ollama` clients to the built emulator and a simulated node, then `overview`, `traces`, `usage`,
 * `models` and `trends` read over HTTP show the same requests and tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

const MODEL = 'llama3.2:3b';
let node: SimNode;
let router: RouterProcess;

beforeAll(async () => {
  node = await startSimNode({ id: 'plain', models: CATALOG.filter((entry) => entry.name === MODEL), loaded: [MODEL] });
  router = await startRouter({ FLEET_NODES: `plain=${node.url}` });
  await eventually(async () => {
    const status = (await (await fetch(`${router.url}/fleet/status`)).json()) as { fleet: { nodes_online: number } };
    expect(status.fleet.nodes_online).toBe(1);
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
});

async function read<T>(view: string, query = ''): Promise<T> {
  const response = await fetch(`${router.url}/dashboard/api/${view}${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

interface Tokens {
  readonly prompt: number;
  readonly completion: number;
}

describe('analytics views', () => {
  it('show the same requests and tokens in every view', async () => {
    const openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused' });
    for (const question of ['one', 'two', 'three']) {
      await openai.chat.completions.create(
        { model: MODEL, messages: [{ role: 'user', content: question }] },
        { headers: { 'X-Service-Tags': 'app:e2e' } },
      );
    }
    const ollama = new Ollama({ host: router.url });
    for await (const _part of await ollama.chat({
      model: MODEL,
      messages: [{ role: 'user', content: 'four' }],
      stream: true,
    })) {
      // drained
    }

    const overview = await eventually(async () => {
      const body = await read<{
        total_requests: number;
        total_prompt_tokens: number;
        total_completion_tokens: number;
        last_24h: { requests: number };
      }>('overview');
      expect(body.total_requests).toBe(4);
      return body;
    });
    const tokens: Tokens = { prompt: overview.total_prompt_tokens, completion: overview.total_completion_tokens };
    expect(tokens.prompt).toBeGreaterThan(0);
    expect(overview.last_24h.requests).toBe(4);

    const traces = await read<{
      traces: {
        prompt_tokens: number;
        completion_tokens: number;
        tags: string[];
        node_id: string;
        original_format: string;
      }[];
    }>('traces');
    expect(traces.traces).toHaveLength(4);
    expect(traces.traces.map((trace) => trace.original_format)).toEqual([
      'ollama-chat',
      'openai-chat',
      'openai-chat',
      'openai-chat',
    ]);
    expect(traces.traces.filter((trace) => trace.tags.includes('app:e2e'))).toHaveLength(3);
    expect(
      sumOf(traces.traces, (trace) => ({ prompt: trace.prompt_tokens, completion: trace.completion_tokens })),
    ).toEqual(tokens);

    const usage = await read<{
      data: { node_id: string; request_count: number; total_prompt_tokens: number; total_completion_tokens: number }[];
    }>('usage');
    expect(usage.data.map((row) => [row.node_id, row.request_count])).toEqual([['plain', 4]]);
    expect(
      sumOf(usage.data, (row) => ({ prompt: row.total_prompt_tokens, completion: row.total_completion_tokens })),
    ).toEqual(tokens);

    const models = await read<{
      summary: {
        model_name: string;
        total_requests: number;
        total_prompt_tokens: number;
        total_completion_tokens: number;
      }[];
    }>('models');
    expect(models.summary.map((row) => [row.model_name, row.total_requests])).toEqual([[MODEL, 4]]);
    expect(
      sumOf(models.summary, (row) => ({ prompt: row.total_prompt_tokens, completion: row.total_completion_tokens })),
    ).toEqual(tokens);

    const trends = await read<{
      data: { request_count: number; total_prompt_tokens: number; total_completion_tokens: number }[];
    }>('trends');
    expect(trends.data.reduce((total, hour) => total + hour.request_count, 0)).toBe(4);
    expect(
      sumOf(trends.data, (row) => ({ prompt: row.total_prompt_tokens, completion: row.total_completion_tokens })),
    ).toEqual(tokens);
  }, 30_000);
});

function sumOf<T>(rows: readonly T[], tokens: (row: T) => Tokens): Tokens {
  return rows.reduce(
    (total, row) => ({
      prompt: total.prompt + tokens(row).prompt,
      completion: total.completion + tokens(row).completion,
    }),
    { prompt: 0, completion: 0 },
  );
}
