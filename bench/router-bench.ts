/**
 * The router against the floor (ARCHITECTURE.md §6, issue 42): the fast node called directly, behind a
 * bare Node proxy, and behind the router, measured side by side and interleaved. First the back-to-back
 * rounds: sequential added latency (median of round medians), closed-loop throughput at c=16 and c=64,
 * streaming first byte and lines in vs out. The sequential requests take turns in blocks of 50
 * (./sequential-probe), so a spell of the host falls on the three targets alike. Beside each c=64 run it
 * reads the CPU time the proxy or router process used per request. The proxy and the router run on one
 * core, the load, the node and the table on the other (./pinning), so how a host shares its cores decides
 * no ratio. The sequential probe has a fourth target, the router's frame without routing (./frame-relay,
 * on the server's core with the router's flags): what of the router's added latency the Lambda frame
 * costs, and what routing adds, in the same run. Then what clients meet beyond back-to-back requests:
 * requests about a second apart (./spaced-arrivals) and hundreds of long streams at once
 * (./many-streams), proxy and router in turns. The router runs as `npm start` runs it, its own table
 * process included (./processes), and the memory of all its processes is sampled during its c=64 and
 * many-streams runs (./rss-window).
 * Then the router on its defaults — the node's own concurrency, the default queue — at c=64: it must
 * turn away nothing an Ollama alone would have queued (issue 24 item 1).
 */
import autocannon from 'autocannon';
import { BENCH_MODEL, SLOW_MODEL, STREAM_LINES } from './fast-node';
import { manyStreamsBench } from './many-streams';
import { serverCpuMicros } from './process-cpu';
import { processLabel, processTree, residentKb } from './process-tree';
import { startFrameProcess, startRole, startRouterProcess } from './processes';
import { type RoundFigures, roundsReport, type SequentialTarget, type Target } from './router-report';
import { createRssWindow, memoryVerdict, peaksText, type RssWindow } from './rss-window';
import { interleavedSequentialMicros } from './sequential-probe';
import { spacedArrivalsBench } from './spaced-arrivals';
import { formatNumber } from './stats';
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
    const names = tags.models.map((model) => model.name);
    if (names.includes(BENCH_MODEL) && names.includes(SLOW_MODEL)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the router never listed the benchmark node');
}

async function closedLoop(url: string, connections: number, duration: number) {
  return autocannon({
    url: `${url}/api/chat`,
    method: 'POST',
    body: chatBody(false),
    headers: { 'content-type': 'application/json' },
    connections,
    duration,
  });
}

interface RoundParties {
  readonly urls: Readonly<Record<SequentialTarget, string>>;
  readonly pids: Readonly<Record<Target, number>>;
  /** Samples the proxy's and the router's processes during their counted c=64 runs. */
  readonly memory: Readonly<Record<'proxy' | 'router', RssWindow>>;
}

/**
 * Each party warmed first, uncounted: a fresh V8 runs the router's code unoptimised for its first tens of
 * thousands of requests (measured: ~1,100 µs CPU per request in its first 3 s at c=64, ~350 once warm).
 * That is the cold-start figure's business; these budgets are about the router running. The frame warms
 * first, so the three are warmed and start their rounds as they did without it.
 */
async function warmUp(urls: Readonly<Record<SequentialTarget, string>>): Promise<void> {
  for (const target of ['frame', 'direct', 'proxy', 'router'] as const) {
    await closedLoop(urls[target], 64, WARM_UP_SECONDS);
    if (target !== 'frame') await streamProbe(`${urls[target]}/api/chat`, chatBody(true), 100);
  }
}

/** The back-to-back rounds: sequential, c=16 and c=64, streaming first byte, the targets in turns. */
async function rounds(parties: RoundParties): Promise<RoundFigures> {
  const { urls, pids, memory } = parties;
  const targets: Target[] = ['direct', 'proxy', 'router'];
  const sequentialTargets: SequentialTarget[] = [...targets, 'frame'];
  const figures: RoundFigures = {
    latency: { direct: [], proxy: [], router: [], frame: [] },
    c16: { direct: [], proxy: [], router: [] },
    c64: { direct: [], proxy: [], router: [] },
    cpu64: { direct: [], proxy: [], router: [] },
    firstByte: { direct: [], proxy: [], router: [] },
    linesOk: true,
  };
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
    for (const target of sequentialTargets) figures.latency[target].push(sequential.get(target) ?? Number.NaN);
    for (const [connections, results] of [
      [16, figures.c16],
      [64, figures.c64],
    ] as const) {
      for (const target of order) {
        const cpuBefore = serverCpuMicros(pids[target]);
        const load = () => closedLoop(urls[target], connections, SECONDS);
        const result = connections === 64 && target !== 'direct' ? await memory[target].during(load) : await load();
        if (result.errors > 0 || result.non2xx > 0)
          throw new Error(`${target} c=${connections}: ${result.errors} errors, ${result.non2xx} non-2xx`);
        results[target].push(result.requests.average);
        if (connections === 64)
          figures.cpu64[target].push((serverCpuMicros(pids[target]) - cpuBefore) / result.requests.total);
      }
    }
    for (const target of order) {
      const probe = await streamProbe(`${urls[target]}/api/chat`, chatBody(true), 100);
      figures.firstByte[target].push(probe.firstByteMs);
      if (probe.minLines !== STREAM_LINES || probe.maxLines !== STREAM_LINES) figures.linesOk = false;
    }
  }
  return figures;
}

/** Each of the router's processes' peak over its whole life (VmHWM), for the report beside the sampled peaks. */
function lifetimePeaks(routerPid: number): string {
  return processTree(routerPid)
    .map((pid) => `${processLabel(pid)} ${formatNumber((residentKb(pid, 'VmHWM') ?? Number.NaN) / 1024)} MB`)
    .join(' + ');
}

export async function routerBench(): Promise<Verdict[]> {
  const node = await startRole(['serve-node']);
  const proxy = await startRole(['serve-proxy', node.url], 'server');
  // The fast node runs every request at once, as a proxy lets it, and the router is told so.
  const router = await startRouterProcess({ nodes: `bench=${node.url}`, concurrency: 'bench=256' });
  const frame = await startFrameProcess(node.url);
  try {
    await waitForModel(router.url);
    const urls = { direct: node.url, proxy: proxy.url, router: router.url, frame: frame.url };
    const c64Memory = { proxy: createRssWindow(proxy.pid), router: createRssWindow(router.pid) };
    const streamsMemory = { proxy: createRssWindow(proxy.pid), router: createRssWindow(router.pid) };
    await warmUp(urls);
    const figures = await rounds({
      urls,
      pids: { direct: node.pid, proxy: proxy.pid, router: router.pid },
      memory: c64Memory,
    });
    const verdicts = roundsReport(figures);
    verdicts.push(
      ...(await spacedArrivalsBench({
        direct: `${node.url}/api/chat`,
        proxy: `${proxy.url}/api/chat`,
        router: `${router.url}/api/chat`,
      })),
    );
    verdicts.push(
      ...(await manyStreamsBench({
        urls: { proxy: proxy.url, router: router.url },
        pids: { proxy: proxy.pid, router: router.pid },
        memory: streamsMemory,
      })),
    );
    console.log('\nMemory (resident, sampled every 50 ms during the runs)');
    for (const [during, windows] of [
      ['c=64', c64Memory],
      ['many streams', streamsMemory],
    ] as const) {
      console.log(
        `  ${during}: router ${peaksText(windows.router.peaks())}; bare proxy ${peaksText(windows.proxy.peaks())}`,
      );
    }
    console.log(`  the router's processes, peak over their whole life (VmHWM): ${lifetimePeaks(router.pid)}`);
    verdicts.push(memoryVerdict('the c=64 runs', c64Memory.router.peaks()));
    verdicts.push(memoryVerdict('the many-streams runs', streamsMemory.router.peaks()));
    return verdicts;
  } finally {
    // The router flushes its written-behind traces into its table thread on the way out.
    await Promise.all([router.stop(), proxy.stop(), frame.stop()]);
    await node.stop();
  }
}

/**
 * The router on its defaults against one node at c=64: FLEET_NODE_CONCURRENCY unset, so one request runs
 * at a time (the fast node reports no parallelism) and the rest wait in the default queue. An Ollama alone
 * queues 512 and serves them all; the router must refuse none of them either.
 */
export async function defaultsBench(): Promise<Verdict> {
  const node = await startRole(['serve-node']);
  const router = await startRouterProcess({ nodes: `bench=${node.url}`, concurrency: undefined });
  try {
    await waitForModel(router.url);
    const result = await closedLoop(router.url, 64, SECONDS);
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
    await node.stop();
  }
}
