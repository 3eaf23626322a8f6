/**
 * Two instances, one dashboard (issue 25 item 1; ARCHITECTURE.md §3.6): after traffic through both
 * instances, the operator API answers the same fleet-wide figures from either — traces, usage, apps,
 * overview and health — once each instance's write-behind has flushed (at least once a second) and its
 * read caches have lapsed (2 s for the analytics views, 10 s for health); and a benchmark started through
 * instance A shows in progress on B and is cancelled through B.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimAgent, startSimAgent } from '../../emulator/sim';
import { type InstancePair, startInstancePair } from './instance-pair';
import { eventually, type RouterProcess } from './router-process';

const MODEL = 'llama3.2:3b';
/** The tag the traffic is sent with, so the figures read are this test's only. */
const TAG = 'app:two-instances';

let pair: InstancePair;
let agents: SimAgent[];

// biome-ignore lint/suspicious/noExplicitAny: the views are read loosely, field by field, by the assertions.
type Json = Record<string, any>;

beforeAll(async () => {
  pair = await startInstancePair();
  agents = await Promise.all(
    ['gpu-1', 'gpu-2'].map((nodeId) =>
      startSimAgent({
        nodeId,
        routerUrl: pair.a.url,
        intervalMs: 2000,
        ollamaOptions: {
          id: nodeId,
          models: CATALOG.filter((entry) => entry.name === MODEL),
          loaded: [MODEL],
          numParallel: 2,
          ttftMs: 5,
          tokensPerSecond: 2000,
        },
      }),
    ),
  );
  await eventually(async () => {
    const body = (await read(pair.b, '/fleet/status')) as { fleet: { nodes_online: number } };
    expect(body.fleet.nodes_online).toBe(2);
  });
}, 30_000);

afterAll(async () => {
  await Promise.all((agents ?? []).map((agent) => agent.stop()));
  await pair?.stop();
});

async function read(router: RouterProcess, path: string): Promise<Json> {
  const response = await fetch(`${router.url}${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

/** A POST with the test's tag and one naming the instance it went through. */
async function post(router: RouterProcess, path: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${router.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-tags': `${TAG},via:${viaTag(router)}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const viaTag = (router: RouterProcess) => (router === pair.a ? 'a' : 'b');

/** The same view read from both instances, once they agree and `check` holds for it. */
async function agreed(path: string, check: (view: Json) => void, timeoutMs = 8000): Promise<Json> {
  return eventually(async () => {
    const [fromA, fromB] = await Promise.all([read(pair.a, path), read(pair.b, path)]);
    check(fromA);
    expect(fromB).toEqual(fromA);
    return fromA;
  }, timeoutMs);
}

describe('two router instances on one table: the operator API', () => {
  it('answers the same traces, usage, apps, overview and health from either instance', async () => {
    const ask = (content: string) => ({ model: MODEL, messages: [{ role: 'user', content }], stream: false });
    const replies = [
      await post(pair.a, '/api/chat', ask('through A, one')),
      await post(pair.a, '/v1/chat/completions', ask('through A, two')),
      await post(pair.a, '/api/chat', ask('through A, three')),
      await post(pair.b, '/api/chat', ask('through B, one')),
      await post(pair.b, '/v1/chat/completions', ask('through B, two')),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);

    // One window for both instances, so the reads differ only in what each instance knows.
    const window = `start_ts=${Math.floor(Date.now() / 1000) - 3600}&end_ts=${Math.ceil(Date.now() / 1000) + 3600}`;
    const traces = await agreed(`/dashboard/api/traces?tag=${TAG}&limit=50`, (view) => {
      expect(view['traces']).toHaveLength(5);
    });
    const usage = await agreed(`/dashboard/api/usage?${window}`, (view) => {
      expect(view['data'].reduce((sum: number, row: Json) => sum + row['request_count'], 0)).toBe(5);
    });
    const apps = await agreed(`/dashboard/api/apps?${window}`, (view) => {
      expect(view['data'].find((row: Json) => row['tag'] === TAG)?.['request_count']).toBe(5);
    });
    const overview = await agreed('/dashboard/api/overview', (view) => {
      expect(view['total_requests']).toBe(5);
    });
    // Health is cached for 10 s per instance; its traffic figures are the fleet's, read from the rollups.
    const health = await eventually(async () => {
      const [fromA, fromB] = await Promise.all([
        read(pair.a, '/dashboard/api/health'),
        read(pair.b, '/dashboard/api/health'),
      ]);
      expect(fromA['vitals']['total_requests_24h']).toBe(5);
      expect(fromB['vitals']).toEqual(fromA['vitals']);
      return fromA;
    }, 15_000);

    const tokens = (rows: Json[], field: string) => rows.reduce((sum, row) => sum + row[field], 0);
    const via = (tag: string) => traces['traces'].filter((trace: Json) => trace['tags'].includes(tag)).length;
    expect([via('via:a'), via('via:b')]).toEqual([3, 2]);
    expect(tokens(usage['data'], 'total_completion_tokens')).toBe(tokens(traces['traces'], 'completion_tokens'));
    expect(
      apps['data'].filter((row: Json) => row['tag'].startsWith('via:')).map((row: Json) => row['request_count']),
    ).toEqual([3, 2]);
    expect(overview['total_completion_tokens']).toBe(tokens(traces['traces'], 'completion_tokens'));
    expect(health['vitals']).toBeDefined();
  }, 40_000);

  it('shows a benchmark started through A in progress on B, and cancels it through B', async () => {
    const started = await post(pair.a, '/dashboard/api/benchmarks/start', { duration: 60, model_types: ['llm'] });
    const runId = started.body['run_id'];

    const onB = await read(pair.b, '/dashboard/api/benchmarks/progress');
    const refusedOnB = await post(pair.b, '/dashboard/api/benchmarks/start', { duration: 5, model_types: ['llm'] });
    const cancelled = await post(pair.b, '/dashboard/api/benchmarks/cancel', {});
    const ended = await agreed('/dashboard/api/benchmarks/progress', (view) => {
      expect(view['status']).toBe('cancelled');
    });
    const listed = await agreed('/dashboard/api/benchmarks', (view) => {
      expect(view['data'][0]?.['status']).toBe('cancelled');
    });

    expect(started).toMatchObject({ status: 200, body: { status: 'started' } });
    expect(onB).toMatchObject({ run_id: runId, status: 'running' });
    expect(refusedOnB.status).toBe(409);
    expect(refusedOnB.body['error']['message']).toContain(runId);
    expect(cancelled.body).toEqual({ status: 'cancelled', run_id: runId });
    expect(ended['run_id']).toBe(runId);
    expect(listed['data'][0]['run_id']).toBe(runId);
    // Cancelled long before its 60 s: the run on A saw B's cancel.
    expect(ended['elapsed']).toBeLessThan(30);
  }, 30_000);
});
