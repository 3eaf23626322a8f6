/**
 * Many streams (ARCHITECTURE.md §6, issue 42): `BENCH_STREAMS` (250) concurrent streams of the fast node's
 * slow-stream model (./fast-node: 100 chunks 50 ms apart), in the Ollama style (`/api/chat`) and the
 * OpenAI style (`/v1/chat/completions`, `stream: true`), through the bare proxy and through the router. The
 * proxy forwards `/v1` to the node's own OpenAI layer, as a proxy in front of an Ollama would; the router
 * translates it. Runs take turns — every style and target once per round, the order turning each round —
 * after one uncounted round that warms each path. Each run's CPU is the server process's, read from the
 * first send to `SETTLE_MS` after the last stream ended, so what the router writes behind for those streams
 * is counted with them, less its table thread's, printed beside it (the table stands for DynamoDB,
 * which a Lambda does not run). First byte and the gaps between chunks are measured at the client
 * (./stream-load, ./chunk-timeline), and every stream must bring every chunk, one per line, in order.
 */

import { gapsBetween } from './chunk-timeline';
import { SLOW_CHUNKS, SLOW_INTERVAL_MS, SLOW_MODEL } from './fast-node';
import { processCpuMicros, serverCpuMicros, tableThreadCpuMicros } from './process-cpu';
import { processTree } from './process-tree';
import { percentile } from './routing/percentile';
import type { RssWindow } from './rss-window';
import { formatNumber, formatSigned } from './stats';
import { STYLE_PATHS, type StreamRecord, type StreamStyle, streamLoad } from './stream-load';
import type { Verdict } from './verdict';

const STREAMS = Number(process.env['BENCH_STREAMS'] ?? 250);
const ROUNDS = Number(process.env['BENCH_STREAM_ROUNDS'] ?? 3);
/** After a run, before its CPU is read: the router flushes what it wrote behind at least every second. */
const SETTLE_MS = 1500;

type Server = 'proxy' | 'router';
const SERVERS: readonly Server[] = ['proxy', 'router'];
const STYLES: readonly StreamStyle[] = ['ollama', 'openai'];

export interface StreamParties {
  readonly urls: Readonly<Record<Server, string>>;
  readonly pids: Readonly<Record<Server, number>>;
  /**
   * Samples each server's processes while its runs go on: the router's for the memory budget, the proxy's
   * for comparison and so that both runs share the load's loop with the same sampler.
   */
  readonly memory: Readonly<Record<Server, RssWindow>>;
}

/** What one style through one server measured over the counted rounds. */
interface Figures {
  readonly firstBytes: number[];
  readonly firstChunks: number[];
  readonly gaps: number[];
  streams: number;
  chunks: number;
  /** Streams that missed a chunk, merged two into one line, reordered them, or failed. */
  faulty: number;
  merged: number;
  firstFault: string | undefined;
  cpuMicros: number;
  /** The server's table's CPU (the router's table thread), apart from its own. */
  tableCpuMicros: number;
}

/** The same request in both styles: the path says which. */
const BODY = JSON.stringify({ model: SLOW_MODEL, messages: [{ role: 'user', content: 'benchmark' }], stream: true });

/**
 * CPU µs used so far by the server `pid` itself and, apart, by its table: its table thread (./process-cpu)
 * and any process it started; a process gone counts nothing.
 */
function cpuOf(pid: number): { own: number; table: number } {
  const safe = (read: () => number) => {
    try {
      return read();
    } catch {
      return 0;
    }
  };
  const [, ...children] = processTree(pid);
  const childCpu = children.reduce((sum, child) => sum + safe(() => processCpuMicros(child)), 0);
  return { own: safe(() => serverCpuMicros(pid)), table: safe(() => tableThreadCpuMicros(pid)) + childCpu };
}

function fault(record: StreamRecord): string | undefined {
  if (record.error !== undefined) return record.error;
  if (record.arrivals.length !== SLOW_CHUNKS) return `${record.arrivals.length} of ${SLOW_CHUNKS} chunks`;
  if (record.merged > 0) return `${record.merged} lines with two chunks`;
  if (record.outOfOrder > 0) return `${record.outOfOrder} chunks out of order`;
  return undefined;
}

async function run(parties: StreamParties, server: Server, style: StreamStyle, figures: Figures | undefined) {
  const url = `${parties.urls[server]}${STYLE_PATHS[style]}`;
  const before = cpuOf(parties.pids[server]);
  const records = await parties.memory[server].during(() => streamLoad(url, BODY, STREAMS, SLOW_INTERVAL_MS));
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const after = cpuOf(parties.pids[server]);
  if (figures === undefined) return;
  figures.cpuMicros += after.own - before.own;
  figures.tableCpuMicros += Math.max(0, after.table - before.table);
  for (const record of records) {
    figures.streams += 1;
    figures.chunks += record.arrivals.length;
    figures.merged += record.merged;
    figures.firstBytes.push(record.firstByteMs);
    figures.firstChunks.push(record.firstChunkMs);
    figures.gaps.push(...gapsBetween(record.arrivals));
    const why = fault(record);
    if (why !== undefined) {
      figures.faulty += 1;
      figures.firstFault ??= why;
    }
  }
}

const key = (server: Server, style: StreamStyle) => `${server} ${style}`;

/** Every style through every server, in turns; the verdicts of the counted rounds. */
export async function manyStreamsBench(parties: StreamParties): Promise<Verdict[]> {
  const figures = new Map<string, Figures>();
  const runs = STYLES.flatMap((style) => SERVERS.map((server) => ({ server, style })));
  for (const { server, style } of runs) {
    figures.set(key(server, style), {
      firstBytes: [],
      firstChunks: [],
      gaps: [],
      streams: 0,
      chunks: 0,
      faulty: 0,
      merged: 0,
      firstFault: undefined,
      cpuMicros: 0,
      tableCpuMicros: 0,
    });
  }
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (let step = 0; step < runs.length; step += 1) {
      const { server, style } = runs[(step + round) % runs.length] as (typeof runs)[number];
      await run(parties, server, style, round === 0 ? undefined : figures.get(key(server, style)));
    }
  }
  return report(figures);
}

function report(figures: ReadonlyMap<string, Figures>): Verdict[] {
  const of = (server: Server, style: StreamStyle) => figures.get(key(server, style)) as Figures;
  const p = (values: readonly number[], at: number, digits = 1) => formatNumber(percentile(values, at), digits);
  console.log(
    `\nMany streams: ${STREAMS} at once, ${SLOW_CHUNKS} chunks ${SLOW_INTERVAL_MS} ms apart, ${ROUNDS} counted rounds (after one uncounted)`,
  );
  console.log(
    'target          streams   first byte p50/p99 ms   first chunk p99 ms   gap p50/p99/p99.9/max ms   CPU µs/chunk   table CPU µs/chunk',
  );
  for (const style of STYLES) {
    for (const server of SERVERS) {
      const f = of(server, style);
      const columns = [
        String(f.streams).padStart(7),
        `${p(f.firstBytes, 50)}/${p(f.firstBytes, 99)}`.padStart(24),
        p(f.firstChunks, 99).padStart(21),
        `${p(f.gaps, 50)}/${p(f.gaps, 99)}/${p(f.gaps, 99.9)}/${p(f.gaps, 100)}`.padStart(27),
        formatNumber(f.cpuMicros / f.chunks, 2).padStart(15),
        (server === 'router' ? formatNumber(f.tableCpuMicros / f.chunks, 2) : '').padStart(21),
      ];
      console.log(`${`${server} ${style}`.padEnd(16)}${columns.join('')}`);
    }
  }
  const verdicts = STYLES.flatMap((style) => styleVerdicts(style, of('router', style), of('proxy', style)));
  const faults = [...figures].filter(([, f]) => f.faulty > 0);
  const perStream = `${SLOW_CHUNKS} chunks in order, one per line`;
  verdicts.push({
    what: 'many streams: every chunk forwarded as it comes (counted at the client, both styles, proxy and router)',
    measured:
      faults.length === 0
        ? `every stream (${[...figures.values()].reduce((sum, f) => sum + f.streams, 0)}) got ${perStream}`
        : faults.map(([name, f]) => `${name}: ${f.faulty} of ${f.streams} streams short (${f.firstFault})`).join('; '),
    budget: perStream,
    ok: faults.length === 0,
  });
  return verdicts;
}

function styleVerdicts(style: StreamStyle, router: Figures, proxy: Figures): Verdict[] {
  const cpu = { router: router.cpuMicros / router.chunks, proxy: proxy.cpuMicros / proxy.chunks };
  const gap = { router: percentile(router.gaps, 99.9), proxy: percentile(proxy.gaps, 99.9) };
  const first = { router: percentile(router.firstBytes, 99), proxy: percentile(proxy.firstBytes, 99) };
  const name = `many streams, ${style === 'ollama' ? 'Ollama /api/chat' : 'OpenAI /v1/chat/completions'}`;
  return [
    {
      what: `${name}: CPU per forwarded chunk`,
      measured: `router ${formatNumber(cpu.router, 2)} µs vs proxy ${formatNumber(cpu.proxy, 2)} µs (${formatNumber(cpu.router / cpu.proxy, 2)}×)`,
      budget: '≤ 1.5× the proxy',
      ok: cpu.router <= 1.5 * cpu.proxy,
    },
    {
      what: `${name}: gap between chunks p99.9`,
      measured: `router ${formatNumber(gap.router)} ms vs proxy ${formatNumber(gap.proxy)} ms (${formatSigned(gap.router - gap.proxy)} ms)`,
      budget: '≤ +5 ms over the proxy',
      ok: gap.router - gap.proxy <= 5,
    },
    {
      what: `${name}: first byte p99`,
      measured: `router ${formatNumber(first.router)} ms vs proxy ${formatNumber(first.proxy)} ms (${formatNumber(first.router / first.proxy, 2)}×)`,
      budget: '≤ 1.5× the proxy',
      ok: first.router <= 1.5 * first.proxy,
    },
  ];
}
