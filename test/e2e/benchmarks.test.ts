/**
 * A benchmark run end to end (issue 22 item 6): the built emulator in its own process, a listed simulated
 * Ollama node, `start` answered at once while the run goes on in the emulator's background, progress read
 * over HTTP until the run completes, and the stored report naming the node's real streamed chat load.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type DynamoStandIn, startDynamo } from '../../emulator/dynamo';
import { catalogEntry, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let dynamo: DynamoStandIn;
let node: SimNode;
let router: RouterProcess;

// biome-ignore lint/suspicious/noExplicitAny: the replies are read loosely, field by field, by the assertions.
type Json = Record<string, any>;

async function request(method: string, path: string, body?: unknown) {
  const response = await fetch(`${router.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

beforeAll(async () => {
  dynamo = await startDynamo({ dataDir: ':memory:', port: 0 });
  node = await startSimNode({
    id: 'gpu',
    models: [catalogEntry('llama3.2:3b')],
    loaded: ['llama3.2:3b'],
    numParallel: 2,
    ttftMs: 5,
    tokensPerSecond: 2_000,
  });
  router = await startRouter({
    FLEET_NODES: `gpu=${node.url}`,
    FLEET_DYNAMODB_ENDPOINT: dynamo.endpoint,
    FLEET_TABLE: 'fleet-benchmarks-e2e',
  });
  await eventually(async () => {
    const status = await request('GET', '/fleet/status');
    expect(JSON.stringify(status.body)).toContain('llama3.2:3b');
  });
});

afterAll(async () => {
  await router.stop();
  await node.close();
  await dynamo.close();
});

describe('benchmarks through the emulator', () => {
  it('answers start at once, runs in the background, and stores the report of real streamed chat load', async () => {
    const started = await request('POST', '/dashboard/api/benchmarks/start', { duration: 2, model_types: ['llm'] });
    const running = await request('GET', '/dashboard/api/benchmarks/progress');
    const done = await eventually(async () => {
      const progress = await request('GET', '/dashboard/api/benchmarks/progress');
      expect(progress.body['status']).toBe('complete');
      return progress.body;
    }, 20_000);
    const run = await request('GET', `/dashboard/api/benchmarks/${started.body['run_id']}`);
    const list = await request('GET', '/dashboard/api/benchmarks?limit=5');

    expect(started).toMatchObject({ status: 200, body: { status: 'started', duration: 2, model_types: ['llm'] } });
    expect(running.body).toMatchObject({ run_id: started.body['run_id'], status: 'running' });
    expect(done['requests_completed']).toBeGreaterThan(0);
    expect(run.body['data'].report.per_node.gpu.requests_completed).toBe(done['requests_completed']);
    expect(run.body['data'].report.per_model['llama3.2:3b'].ttft_ms.count).toBe(done['requests_completed']);
    expect(node.requests.filter((record) => record.path === '/api/chat').length).toBeGreaterThan(0);
    expect(list.body['data'].map((entry: { run_id: string }) => entry.run_id)).toEqual([started.body['run_id']]);
  });
});
