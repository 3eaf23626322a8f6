/**
 * The benchmark routes in process (buffered host) against a simulated Ollama node (emulator/sim), two
 * router instances on one table: a run's real load through the dispatcher, its progress rising, a
 * second start refused with 409 while it runs, any instance reading progress and cancelling, the run
 * stored with its report and listed, and every request it made traced with its run id and the tag
 * `benchmark`. A run launched in AWS arrives as the dashboard function's own asynchronous invocation: a
 * fake invoke takes its payload, and the exported handler runs it.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { handler as dashboardHandler, routes } from '../../functions/dashboard';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { type BenchmarkRun, benchmarkRunId } from '../../lib/core/benchmarks/benchmark-run';
import { initServices, type Services } from '../../lib/instance';
import { createBenchmarkLauncher } from '../../lib/services/benchmarks/benchmark-launcher';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { dayOf, prefixedKey } from '../../lib/services/store/keys';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeLoadedModel, makeNodeModel, makeNodeRecord } from '../helpers/factories';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let node: SimNode;
let first: Services;
let second: Services;

const call = (services: Services, method: string, path: string, body?: object) =>
  createBufferedHandler(() => routes(services))(
    makeHttpEvent({ method, path, ...(body !== undefined ? { body } : {}) }),
  );
const json = async (reply: Promise<{ statusCode: number; body: string }>) => {
  const answer = await reply;
  return { status: answer.statusCode, body: JSON.parse(answer.body) };
};
const progress = async (services: Services): Promise<BenchmarkRun> =>
  (await json(call(services, 'GET', '/dashboard/api/benchmarks/progress'))).body;

/** Reads progress until `until` holds of it, at most `tries` reads a quarter second apart. */
async function progressUntil(services: Services, until: (run: BenchmarkRun) => boolean, tries = 40) {
  let run = await progress(services);
  for (let attempt = 0; attempt < tries && !until(run); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    run = await progress(services);
  }
  return run;
}

beforeAll(async () => {
  store = await startStore('dashboard-benchmarks');
  node = await startSimNode({
    id: 'sim',
    models: CATALOG.filter((entry) => ['llama3.2:3b', 'nomic-embed-text:latest'].includes(entry.name)),
    loaded: ['llama3.2:3b'],
    numParallel: 2,
    ttftMs: 5,
    tokensPerSecond: 2_000,
  });
  const config = loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName });
  second = initServices(config);
  first = initServices(config);
  await first.registry.save(
    makeNodeRecord({
      id: 'sim',
      url: node.url,
      lastSeenAt: Date.now() + 3_600_000,
      numParallel: 2,
      models: [
        makeNodeModel({ name: 'llama3.2:3b' }),
        makeNodeModel({ name: 'nomic-embed-text:latest', kind: 'embedding', capabilities: ['embedding'] }),
      ],
      loaded: [makeLoadedModel({ name: 'llama3.2:3b' })],
    }),
  );
  await first.registry.refresh();
  await second.registry.refresh();
});

afterAll(async () => {
  await first.benchmarkLauncher.idle();
  await closeServices(first, second);
  await node.close();
  await store.close();
});

describe('benchmark runs', () => {
  it('answers idle before any run, and not_running to a cancel', async () => {
    expect(await progress(first)).toMatchObject({ status: 'idle', phase: 'No benchmark has been run', run_id: null });
    expect(await json(call(second, 'POST', '/dashboard/api/benchmarks/cancel'))).toEqual({
      status: 200,
      body: { status: 'not_running' },
    });
  });

  it.each([
    [{ duration: 0 }, 'duration'],
    [{ duration: 841 }, 'duration'],
    [{ duration: 2.5 }, 'duration'],
    [{ mode: 'smart' }, 'mode'],
    [{ model_types: ['vision'] }, 'model_types'],
    [{ model_types: [] }, 'model_types'],
  ])('refuses %j with a 400 naming %s', async (body, param) => {
    const reply = await json(call(first, 'POST', '/dashboard/api/benchmarks/start', body));

    expect(reply.status).toBe(400);
    expect(reply.body.error.param).toBe(param);
  });

  it('runs load whose progress rises, refuses a second start, and stops on a cancel from another instance', async () => {
    const started = await json(
      call(first, 'POST', '/dashboard/api/benchmarks/start', { duration: 60, model_types: ['llm', 'embed'] }),
    );
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'started', mode: 'default', duration: 60 });
    const runId: string = started.body.run_id;

    const early = await progressUntil(second, (run) => run.requests_completed > 0);
    const later = await progressUntil(second, (run) => run.requests_completed > early.requests_completed);
    const conflict = await json(call(second, 'POST', '/dashboard/api/benchmarks/start', { duration: 5 }));
    const cancel = await json(call(second, 'POST', '/dashboard/api/benchmarks/cancel'));
    await first.benchmarkLauncher.idle();
    const ended = await progress(second);

    expect(early).toMatchObject({
      run_id: runId,
      status: 'running',
      models: ['nomic-embed-text:latest', 'llama3.2:3b'],
    });
    expect(later.requests_completed).toBeGreaterThan(early.requests_completed);
    expect(later.elapsed).toBeGreaterThan(early.elapsed);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({
      error: {
        message: `Benchmark already running (${runId}): see GET /dashboard/api/benchmarks/progress`,
        type: 'invalid_request_error',
        param: null,
        code: 'conflict',
      },
    });
    expect(cancel.body).toEqual({ status: 'cancelled', run_id: runId });
    expect(ended).toMatchObject({ run_id: runId, status: 'cancelled', phase: 'cancelled' });
    expect(ended).not.toHaveProperty('report');
    const stored = await json(call(first, 'GET', `/dashboard/api/benchmarks/${runId}`));
    expect(stored.body.data.report.per_model['llama3.2:3b'].requests_completed).toBeGreaterThan(0);
    expect(stored.body.data.report.per_model['nomic-embed-text:latest'].requests_completed).toBeGreaterThan(0);
  });

  it('completes a short run with its report: rates, latency, TTFT and decode-rate percentiles, peak utilisation', async () => {
    const started = await json(call(second, 'POST', '/dashboard/api/benchmarks/start', { duration: 2 }));
    // `second` launched it: its launcher runs it in this process.
    await second.benchmarkLauncher.idle();

    const run = (await json(call(first, 'GET', `/dashboard/api/benchmarks/${started.body.run_id}`))).body.data;

    expect(run).toMatchObject({
      status: 'complete',
      phase: 'complete',
      duration: 2,
      model_types: ['llm'],
      error: null,
    });
    const llama = run.report.per_model['llama3.2:3b'];
    expect(llama.type).toBe('llm');
    expect(llama.requests_completed).toBeGreaterThan(0);
    expect(llama.requests_failed).toBe(0);
    expect(llama.tok_per_sec).toBeGreaterThan(0);
    expect(llama.ttft_ms.p50).toBeLessThanOrEqual(llama.latency_ms.p50);
    expect(llama.decode_tok_per_sec.count).toBe(llama.requests_completed);
    expect(run.report.per_node.sim.requests_completed).toBe(llama.requests_completed);
    // Two loops on a node that runs two at once: never more in flight than its slots.
    expect(run.report.peak_utilisation.per_node.sim).toBeGreaterThan(0);
    expect(run.report.peak_utilisation.per_node.sim).toBeLessThanOrEqual(1);
    expect(run.report.peak_utilisation.fleet).toBeGreaterThan(0);
  });

  it('lists runs newest first from any instance, and answers 404 for an unknown run', async () => {
    const list = await json(call(second, 'GET', '/dashboard/api/benchmarks', undefined));
    const limited = (
      await json(
        createBufferedHandler(() => routes(first))(
          makeHttpEvent({ path: '/dashboard/api/benchmarks', query: { limit: '1' } }),
        ),
      )
    ).body;
    const unknown = await json(call(first, 'GET', '/dashboard/api/benchmarks/bench-0000000000001-abc'));
    const badLimit = await json(
      createBufferedHandler(() => routes(first))(
        makeHttpEvent({ path: '/dashboard/api/benchmarks', query: { limit: '0' } }),
      ),
    );

    const statuses = list.body.data.map((run: BenchmarkRun) => run.status);
    expect(statuses).toEqual(['complete', 'cancelled']);
    expect(limited.data).toHaveLength(1);
    expect(limited.data[0].run_id).toBe(list.body.data[0].run_id);
    expect(unknown.status).toBe(404);
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.param).toBe('limit');
  });

  it('traces every request of a run with its id and the tag benchmark', async () => {
    await first.writeBehind.flush();
    await second.writeBehind.flush();
    const pages = await store.table.queryDocs(prefixedKey('TRACE', dayOf(Date.now())));
    const all: Trace[] = pages.flatMap((page) => (JSON.parse(page.doc ?? '{}') as { traces: Trace[] }).traces);
    // The starts and cancels themselves are changes, traced apart from the runs' requests (issue 46).
    const changes = all.filter((trace) => trace.style === 'benchmark-start' || trace.style === 'benchmark-cancel');
    const traces = all.filter((trace) => !changes.includes(trace));
    const runs = (await json(call(first, 'GET', '/dashboard/api/benchmarks'))).body.data as BenchmarkRun[];

    expect(changes.map((trace) => trace.style)).toContain('benchmark-start');
    expect(changes.every((trace) => trace.benchmarkRunId === undefined)).toBe(true);
    expect(traces.length).toBeGreaterThan(0);
    expect(new Set(traces.map((trace) => trace.benchmarkRunId))).toEqual(new Set(runs.map((run) => run.run_id)));
    expect(traces.every((trace) => trace.tags.length === 1 && trace.tags[0] === 'benchmark')).toBe(true);
  });

  it('ends a run with nothing to load as an error, and gives the lock back', async () => {
    const started = await json(call(first, 'POST', '/dashboard/api/benchmarks/start', { model_types: ['image'] }));
    await first.benchmarkLauncher.idle();

    const run = (await json(call(second, 'GET', `/dashboard/api/benchmarks/${started.body.run_id}`))).body.data;
    const cancel = await json(call(second, 'POST', '/dashboard/api/benchmarks/cancel'));

    expect(run).toMatchObject({ status: 'error', error: 'no image model is ready on an online node to benchmark' });
    expect(cancel.body).toEqual({ status: 'not_running' });
  });

  it('takes the lock over from a run whose runner stopped reporting, and says that run failed', async () => {
    const deadId = benchmarkRunId(Date.now() - 120_000, 'dead');
    const at = new Date(Date.now() - 120_000).toISOString();
    await first.benchmarks.acquire(deadId, Date.now(), Date.now() + 600_000);
    await first.benchmarks.save({
      run_id: deadId,
      mode: 'default',
      duration: 300,
      model_types: ['llm'],
      status: 'running',
      phase: 'running',
      elapsed: 10,
      requests_completed: 5,
      requests_failed: 0,
      tok_per_sec: 1,
      models: ['llama3.2:3b'],
      error: null,
      started_at: at,
      updated_at: at,
      finished_at: null,
      report: null,
    });

    const started = await json(call(second, 'POST', '/dashboard/api/benchmarks/start', { duration: 1 }));
    await second.benchmarkLauncher.idle();
    const dead = (await json(call(first, 'GET', `/dashboard/api/benchmarks/${deadId}`))).body.data;

    expect(started.status).toBe(200);
    expect(dead).toMatchObject({ status: 'error', phase: 'stopped reporting' });
    expect(dead.finished_at).not.toBeNull();
  });

  it('in AWS, starts the run as an asynchronous invocation of the function, which runs it to the end', async () => {
    const payloads: { functionName: string; payload: string }[] = [];
    const inLambda: Services = {
      ...first,
      benchmarkLauncher: createBenchmarkLauncher({
        functionName: 'fleet-router-dev-dashboard',
        invoke: async (functionName, payload) => {
          payloads.push({ functionName, payload });
        },
      }),
    };

    const started = await json(call(inLambda, 'POST', '/dashboard/api/benchmarks/start', { duration: 1 }));
    const waiting = await progress(first);
    await (dashboardHandler as (event: unknown) => Promise<unknown>)(JSON.parse(payloads[0]?.payload ?? '{}'));
    const run = (await json(call(first, 'GET', `/dashboard/api/benchmarks/${started.body.run_id}`))).body.data;

    expect(payloads).toEqual([
      {
        functionName: 'fleet-router-dev-dashboard',
        payload: JSON.stringify({ fleetBenchmark: { runId: started.body.run_id } }),
      },
    ]);
    expect(waiting).toMatchObject({ run_id: started.body.run_id, status: 'running', phase: 'starting' });
    expect(run).toMatchObject({ status: 'complete' });
    expect(run.report.requests_completed).toBeGreaterThan(0);
  });
});
