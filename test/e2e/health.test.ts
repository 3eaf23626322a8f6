/**
 * `GET /dashboard/api/health` end to end: the built emulator with a polled Ollama node and a node agent
 * with its sidecars — a healthy fleet — finds nothing and scores 100, and the chats sent through the
 * official client show in its vitals once the rollups are written (within the report's 10 s cache).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import {
  CATALOG,
  DEFAULT_IMAGE_MODELS,
  DEFAULT_TRANSCRIPTION_MODELS,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let plain: SimNode;
let router: RouterProcess;
let agent: SimAgent;

const catalog = (names: readonly string[]) => CATALOG.filter((entry) => names.includes(entry.name));

interface HealthBody {
  vitals: Record<string, number | null>;
  recommendations: { check_id: string; severity: string; node_id: string | null }[];
  checked_at: string;
}

async function health(): Promise<HealthBody> {
  const response = await fetch(`${router.url}/dashboard/api/health`);
  expect(response.status).toBe(200);
  return (await response.json()) as HealthBody;
}

beforeAll(async () => {
  plain = await startSimNode({ id: 'plain', models: catalog(['llama3.2:3b', 'qwen3:8b']), loaded: ['llama3.2:3b'] });
  router = await startRouter({ FLEET_NODES: `plain=${plain.url}` });
  agent = await startSimAgent({
    nodeId: 'studio',
    routerUrl: router.url,
    intervalMs: 2000,
    totalGb: 192,
    ollamaOptions: { id: 'studio', models: catalog(['llama3.2:3b', 'gemma3:12b']), loaded: ['llama3.2:3b'] },
    image: DEFAULT_IMAGE_MODELS,
    transcription: DEFAULT_TRANSCRIPTION_MODELS,
  });
  await agent.sendHeartbeat();
  await eventually(async () => {
    const response = await fetch(`${router.url}/fleet/status`);
    const body = (await response.json()) as { fleet: { nodes_online: number } };
    expect(body.fleet.nodes_online).toBe(2);
  });
}, 30_000);

afterAll(async () => {
  await agent?.stop();
  await router?.stop();
  await plain?.close();
});

describe('/dashboard/api/health', () => {
  it('finds nothing on a healthy fleet, and counts the requests it served', async () => {
    const openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    for (let index = 0; index < 3; index += 1) {
      await openai.chat.completions.create({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hi' }] });
    }

    const report = await eventually(async () => {
      const body = await health();
      expect(body.vitals['total_requests_24h']).toBe(3);
      return body;
    }, 20_000);

    expect(report.recommendations).toEqual([]);
    expect(report.vitals).toMatchObject({
      nodes_total: 2,
      nodes_online: 2,
      nodes_offline: 0,
      overall_error_rate_pct: 0,
      health_score: 100,
    });
  }, 30_000);
});
