/**
 * Spaced arrivals (ARCHITECTURE.md §6, issue 42): chat requests about a second apart, streaming and not,
 * sent open loop on the schedule of ./spaced-schedule to each target in turns, each timed from the moment
 * it is sent to its first body byte — what a person chatting, or an agent between tool calls, waits for.
 * Back-to-back runs never see what a quiet second does to a router (a stale fleet snapshot read again, a
 * timer due, a cache gone cold); this run sees nothing else. Each target keeps one keep-alive connection
 * (a second one only if a request is still running when the next is due), as a client's SDK does.
 */
import { Agent, request } from 'node:http';
import { BENCH_MODEL } from './fast-node';
import { percentile } from './routing/percentile';
import { type SpacedSend, spacedSchedule } from './spaced-schedule';
import { formatNumber, formatSigned } from './stats';
import type { Verdict } from './verdict';

/** First-byte times of one target's counted requests, in ms, by kind. */
export interface SpacedFirstBytes {
  readonly streaming: number[];
  readonly plain: number[];
}

function firstByte(url: URL, agent: Agent, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    let first = Number.NaN;
    const outgoing = request(
      url,
      { agent, method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        response.on('data', () => {
          if (Number.isNaN(first)) first = performance.now() - sent;
        });
        response.on('end', () =>
          response.statusCode === 200 ? resolve(first) : reject(new Error(`${url} answered ${response.statusCode}`)),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Sends `schedule` to `urls` (a chat endpoint per target) with `body(streaming)`, each request when it is due,
 * and resolves with every counted request's first byte once all are answered.
 */
export async function spacedArrivals<Target extends string>(
  urls: Readonly<Record<Target, string>>,
  schedule: readonly SpacedSend<Target>[],
  body: (streaming: boolean) => string,
): Promise<Record<Target, SpacedFirstBytes>> {
  const targets = Object.keys(urls) as Target[];
  const agents = new Map(targets.map((target) => [target, new Agent({ keepAlive: true })]));
  const results = {} as Record<Target, SpacedFirstBytes>;
  for (const target of targets) results[target] = { streaming: [], plain: [] };
  const pending: Promise<void>[] = [];
  const failures: unknown[] = [];
  const started = performance.now();
  try {
    for (const send of schedule) {
      const wait = started + send.atMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const agent = agents.get(send.target) as Agent;
      pending.push(
        firstByte(new URL(urls[send.target]), agent, body(send.streaming)).then(
          (ms) => {
            if (send.counted) results[send.target][send.streaming ? 'streaming' : 'plain'].push(ms);
          },
          (error: unknown) => void failures.push(error),
        ),
      );
    }
    await Promise.all(pending);
    if (failures.length > 0) throw new Error(`${failures.length} spaced requests failed: ${String(failures[0])}`);
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  return results;
}

const PER_TARGET = Number(process.env['BENCH_SPACED'] ?? 200);
const SEED = Number(process.env['BENCH_SEED'] ?? 42);
/** The budget: the router's first byte over the proxy's, ms. */
const P50_OVER_MS = 0.5;
const P99_OVER_MS = 2;

type Target = 'direct' | 'proxy' | 'router';

/**
 * The spaced-arrivals run of `npm run bench`: `BENCH_SPACED` counted requests to each of the node itself,
 * the proxy and the router (half of them streaming), a second apart for each, on the schedule of
 * `BENCH_SEED`; its table and its verdicts on first byte over all of a target's requests, both kinds
 * together. The node is there to say what of a quiet request's first byte is neither proxy's nor router's.
 */
export async function spacedArrivalsBench(urls: Readonly<Record<Target, string>>): Promise<Verdict[]> {
  const schedule = spacedSchedule(['direct', 'proxy', 'router'] as const, { perTarget: PER_TARGET, seed: SEED });
  const minutes = (schedule.at(-1)?.atMs ?? 0) / 60_000;
  console.log(
    `\nSpaced arrivals: ${PER_TARGET} requests to each target about a second apart (seed ${SEED}, ${formatNumber(minutes)} min)…`,
  );
  const body = (stream: boolean) =>
    JSON.stringify({ model: BENCH_MODEL, messages: [{ role: 'user', content: 'benchmark' }], stream });
  const results = await spacedArrivals(urls, schedule, body);
  const all = (target: Target) => [...results[target].streaming, ...results[target].plain];
  const p = (values: readonly number[], at: number) => formatNumber(percentile(values, at), 2);
  console.log('target      first byte ms: all p50/p99   streaming p50/p99   non-streaming p50/p99   max');
  for (const target of ['direct', 'proxy', 'router'] as const) {
    const { streaming, plain } = results[target];
    const columns = [
      `${p(all(target), 50)}/${p(all(target), 99)}`.padStart(28),
      `${p(streaming, 50)}/${p(streaming, 99)}`.padStart(20),
      `${p(plain, 50)}/${p(plain, 99)}`.padStart(24),
      p(all(target), 100).padStart(7),
    ];
    console.log(`${target.padEnd(12)}${columns.join('')}`);
  }
  const over = (at: number) => percentile(all('router'), at) - percentile(all('proxy'), at);
  const figures = (at: number) =>
    `router ${p(all('router'), at)} ms vs proxy ${p(all('proxy'), at)} ms (${formatSigned(over(at), 2)} ms)`;
  const kinds = `streaming and not, ${all('router').length} requests each`;
  return [
    {
      what: `spaced arrivals (~1 s apart, ${kinds}): first byte p50`,
      measured: figures(50),
      budget: `≤ +${P50_OVER_MS} ms over the proxy`,
      ok: over(50) <= P50_OVER_MS,
    },
    {
      what: `spaced arrivals (~1 s apart, ${kinds}): first byte p99`,
      measured: figures(99),
      budget: `≤ +${P99_OVER_MS} ms over the proxy`,
      ok: over(99) <= P99_OVER_MS,
    },
  ];
}
