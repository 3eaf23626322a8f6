/**
 * The router against the floor (ARCHITECTURE.md §6, issue: npm run bench): the fast node called directly,
 * behind a bare Node proxy, and behind the router, measured side by side and interleaved. Sequential
 * added latency (median of round medians), closed-loop throughput at c=16 and c=64, streaming first
 * byte and lines in vs out, and the router's peak memory. The sequential requests take turns in blocks
 * of 50 (./sequential-probe), so a spell of the host falls on the three targets alike. Beside each c=64
 * run it reads the CPU time the proxy or router process used per request. The proxy and the router run
 * on one core, the load, the node and the table on the other (./pinning), so how a host shares its cores
 * decides no ratio. The sequential probe has a fourth target, the router's frame without routing
 * (./frame-relay, on the server's core with the router's flags): what of the router's added latency the
 * Lambda frame costs, and what routing adds, in the same run.
 * Then the router on its defaults — the node's own concurrency, the default queue — at c=64: it must
 * turn away nothing an Ollama alone would have queued (issue 24 item 1).
 */
import autocannon from 'autocannon';
import { BENCH_MODEL, STREAM_LINES } from './fast-node';
import { processCpuMicros } from './process-cpu';
import { peakRssMb, startFrameProcess, startRole, startRouterProcess } from './processes';
import { interleavedSequentialMicros } from './sequential-probe';
import { formatNumber, median } from './stats';
import { streamProbe } from './stream-probe';
import type { Verdict } from './verdict';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const SEQUENTIAL = Number(process.env['BENCH_SEQUENTIAL'] ?? 1500);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);
const WARM_UP_SECONDS = Number(process.env['BENCH_WARM_UP_SECONDS'] ?? 8);

const chatBody = (stream: boolean) =>
  JSON.stringify({ model: BENCH_MODEL, messages: [{ role: 'user', content: 'benchmark' }], stream });

async function waitForModel(routerUrl: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const tags = (await (await fetch(`${routerUrl}/api/tags`)).json()) as { models: { name: string }[] };
    if (tags.models.some((model) => model.name === BENCH_MODEL)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the router never listed the benchmark node');
}

type Target = 'direct' | 'proxy' | 'router';
/** The sequential probe's targets: the three, and the frame relay. */
type SequentialTarget = Target | 'frame';

export async function routerBench(): Promise<Verdict[]> {
  const node = await startRole(['serve-node']);
  const proxy = await startRole(['serve-proxy', node.url], 'server');
  // The table lives outside the router, as DynamoDB does for a Lambda; the fast node runs every request
  // at once, as a proxy lets it, and the router is told so.
  const dynamo = await startRole(['serve-dynamo']);
  const router = await startRouterProcess({
    nodes: `bench=${node.url}`,
    concurrency: 'bench=256',
    dynamodbEndpoint: dynamo.url,
  });
  const frame = await startFrameProcess(node.url);
  try {
    await waitForModel(router.url);
    const urls: Record<SequentialTarget, string> = {
      direct: node.url,
      proxy: proxy.url,
      router: router.url,
      frame: frame.url,
    };
    const targets: Target[] = ['direct', 'proxy', 'router'];
    const sequentialTargets: SequentialTarget[] = [...targets, 'frame'];
    // The frame warms first, so the three are warmed and start their rounds as they did without it.
    const warmUpOrder: SequentialTarget[] = ['frame', ...targets];
    const latency: Record<SequentialTarget, number[]> = { direct: [], proxy: [], router: [], frame: [] };
    const c16: Record<Target, number[]> = { direct: [], proxy: [], router: [] };
    const c64: Record<Target, number[]> = { direct: [], proxy: [], router: [] };
    const cpu64: Record<Target, number[]> = { direct: [], proxy: [], router: [] };
    const pids: Record<Target, number> = { direct: node.pid, proxy: proxy.pid, router: router.pid };
    const firstByte: Record<Target, number[]> = { direct: [], proxy: [], router: [] };
    let linesOk = true;
    // Each party warmed first, uncounted: a fresh V8 runs the router's code unoptimised for its first tens
    // of thousands of requests (measured: ~1,100 µs CPU per request in its first 3 s at c=64, ~350 once
    // warm). That is the cold-start figure's business; these budgets are about the router running.
    for (const target of warmUpOrder) {
      await autocannon({
        url: `${urls[target]}/api/chat`,
        method: 'POST',
        body: chatBody(false),
        headers: { 'content-type': 'application/json' },
        connections: 64,
        duration: WARM_UP_SECONDS,
      });
      if (target !== 'frame') await streamProbe(`${urls[target]}/api/chat`, chatBody(true), 100);
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = targets.map((_, index) => targets[(index + round) % targets.length] as Target);
      const sequentialOrder = sequentialTargets.map(
        (_, index) => sequentialTargets[(index + round) % sequentialTargets.length] as SequentialTarget,
      );
      const sequential = await interleavedSequentialMicros(
        sequentialOrder.map((target) => [target, `${urls[target]}/api/chat`] as const),
        SEQUENTIAL,
        chatBody(false),
      );
      for (const target of sequentialTargets) latency[target].push(sequential.get(target) ?? Number.NaN);
      for (const [connections, results] of [
        [16, c16],
        [64, c64],
      ] as const) {
        for (const target of order) {
          const cpuBefore = processCpuMicros(pids[target]);
          const result = await autocannon({
            url: `${urls[target]}/api/chat`,
            method: 'POST',
            body: chatBody(false),
            headers: { 'content-type': 'application/json' },
            connections,
            duration: SECONDS,
          });
          if (result.errors > 0 || result.non2xx > 0)
            throw new Error(`${target} c=${connections}: ${result.errors} errors, ${result.non2xx} non-2xx`);
          results[target].push(result.requests.average);
          if (connections === 64)
            cpu64[target].push((processCpuMicros(pids[target]) - cpuBefore) / result.requests.total);
        }
      }
      for (const target of order) {
        const probe = await streamProbe(`${urls[target]}/api/chat`, chatBody(true), 100);
        firstByte[target].push(probe.firstByteMs);
        if (probe.minLines !== STREAM_LINES || probe.maxLines !== STREAM_LINES) linesOk = false;
      }
    }
    const rss = peakRssMb(router.pid);
    return report({ latency, c16, c64, cpu64, firstByte, linesOk, rss });
  } finally {
    // The router flushes its written-behind traces on the way out: the table goes last.
    await Promise.all([router.stop(), proxy.stop(), frame.stop()]);
    await Promise.all([node.stop(), dynamo.stop()]);
  }
}

interface Figures {
  readonly latency: Record<SequentialTarget, number[]>;
  readonly c16: Record<Target, number[]>;
  readonly c64: Record<Target, number[]>;
  /** CPU µs the target's own process used per request in the c=64 runs (the node's, for `direct`). */
  readonly cpu64: Record<Target, number[]>;
  readonly firstByte: Record<Target, number[]>;
  readonly linesOk: boolean;
  readonly rss: number;
}

function report(figures: Figures): Verdict[] {
  const m = (values: number[]) => median(values);
  console.log('\nRouter vs bare proxy (the fast node behind each; median of round medians)');
  console.log('target      sequential µs   req/s c=16   req/s c=64   CPU µs/req c=64   stream first byte ms');
  for (const target of ['direct', 'proxy', 'router'] as const) {
    console.log(
      `${target.padEnd(12)}${formatNumber(m(figures.latency[target])).padStart(13)}${formatNumber(m(figures.c16[target]), 0).padStart(13)}${formatNumber(m(figures.c64[target]), 0).padStart(13)}${formatNumber(m(figures.cpu64[target])).padStart(18)}${formatNumber(m(figures.firstByte[target]), 2).padStart(23)}`,
    );
  }
  console.log(`${'frame'.padEnd(12)}${formatNumber(m(figures.latency.frame)).padStart(13)}`);
  console.log(
    `  the router's process used ${formatNumber(m(figures.cpu64.router) / m(figures.cpu64.proxy), 2)}× the proxy's CPU per request at c=64`,
  );
  const direct = m(figures.latency.direct);
  const proxyAdded = m(figures.latency.proxy) - direct;
  const routerAdded = m(figures.latency.router) - direct;
  const frameAdded = m(figures.latency.frame) - direct;
  console.log(
    `  sequential: the Lambda frame without routing adds +${formatNumber(frameAdded)} µs (${formatNumber(frameAdded / proxyAdded, 2)}× the proxy's), routing +${formatNumber(routerAdded - frameAdded)} µs more`,
  );
  const share64 = m(figures.c64.router) / m(figures.c64.proxy);
  const firstByteGap = m(figures.firstByte.router) - m(figures.firstByte.proxy);
  const cpuRatio = m(figures.cpu64.router) / m(figures.cpu64.proxy);
  return [
    {
      what: 'added latency, non-streaming chat, sequential keep-alive',
      measured: `router +${formatNumber(routerAdded)} µs vs proxy +${formatNumber(proxyAdded)} µs (${formatNumber(routerAdded / proxyAdded, 2)}×)`,
      budget: '≤ 1.3× the bare proxy',
      ok: routerAdded <= 1.3 * proxyAdded,
    },
    {
      what: 'throughput, closed loop c=64, non-streaming chat',
      measured: `${formatNumber(share64 * 100, 0)} % of the bare proxy (c=16: ${formatNumber((m(figures.c16.router) / m(figures.c16.proxy)) * 100, 0)} %)`,
      budget: '≥ 60 %',
      ok: share64 >= 0.6,
    },
    {
      what: 'CPU per request at c=64',
      measured: `router ${formatNumber(m(figures.cpu64.router))} µs vs proxy ${formatNumber(m(figures.cpu64.proxy))} µs (${formatNumber(cpuRatio, 2)}×)`,
      budget: '≤ 1.7× the bare proxy',
      ok: cpuRatio <= 1.7,
    },
    {
      what: 'streaming first byte after the bare proxy',
      measured: `${formatNumber(firstByteGap, 2)} ms`,
      budget: '≤ 0.3 ms',
      ok: firstByteGap <= 0.3,
    },
    {
      what: 'streaming chunks in = chunks out',
      measured: figures.linesOk
        ? `${STREAM_LINES} lines in, ${STREAM_LINES} out, every request`
        : 'lines lost or merged',
      budget: 'equal',
      ok: figures.linesOk,
    },
    {
      what: 'router peak RSS during the runs',
      measured: `${formatNumber(figures.rss)} MB`,
      budget: '≤ 120 MB',
      ok: figures.rss <= 120,
    },
  ];
}

/**
 * The router on its defaults against one node at c=64: FLEET_NODE_CONCURRENCY unset, so one request runs
 * at a time (the fast node reports no parallelism) and the rest wait in the default queue. An Ollama alone
 * queues 512 and serves them all; the router must refuse none of them either.
 */
export async function defaultsBench(): Promise<Verdict> {
  const node = await startRole(['serve-node']);
  const dynamo = await startRole(['serve-dynamo']);
  const router = await startRouterProcess({
    nodes: `bench=${node.url}`,
    concurrency: undefined,
    dynamodbEndpoint: dynamo.url,
  });
  try {
    await waitForModel(router.url);
    const result = await autocannon({
      url: `${router.url}/api/chat`,
      method: 'POST',
      body: chatBody(false),
      headers: { 'content-type': 'application/json' },
      connections: 64,
      duration: SECONDS,
    });
    const refused = result.non2xx + result.errors;
    console.log(
      `\nRouter on its defaults, c=64 against one node: ${result.requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors, ${formatNumber(result.requests.average, 0)} req/s`,
    );
    return {
      what: 'defaults, c=64 against one node that runs one at a time: requests turned away',
      measured: `${refused} of ${result.requests.total + result.errors}`,
      budget: '0 (an Ollama alone queues 512)',
      ok: refused === 0,
    };
  } finally {
    await router.stop();
    await Promise.all([node.stop(), dynamo.stop()]);
  }
}
