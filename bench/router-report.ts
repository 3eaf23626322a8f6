/**
 * The back-to-back rounds of ./router-bench, reported (ARCHITECTURE.md §6): the table of medians and the
 * verdicts — the sequential guard (issue 42: the Lambda frame stays, so added latency is held to ≤ 1.8×
 * the bare proxy's and ≤ the frame relay's + 120 µs, both printed), c=64 throughput and CPU per request,
 * and the fast streams' lines in = lines out.
 */
import { STREAM_LINES } from './fast-node';
import { formatNumber, formatSigned, median } from './stats';
import type { Verdict } from './verdict';

export type Target = 'direct' | 'proxy' | 'router';
/** The sequential probe's targets: the three, and the frame relay. */
export type SequentialTarget = Target | 'frame';

/** Round by round, one figure per target per round. */
export interface RoundFigures {
  readonly latency: Record<SequentialTarget, number[]>;
  readonly c16: Record<Target, number[]>;
  readonly c64: Record<Target, number[]>;
  /** CPU µs the target's own process used per request in the c=64 runs (the node's, for `direct`). */
  readonly cpu64: Record<Target, number[]>;
  /** Median first byte of back-to-back streaming requests, ms. */
  readonly firstByte: Record<Target, number[]>;
  linesOk: boolean;
}

/** The sequential guard's bounds. */
export const SEQUENTIAL_RATIO = 1.8;
export const SEQUENTIAL_OVER_FRAME_MICROS = 120;

export function roundsReport(figures: RoundFigures): Verdict[] {
  const m = (values: number[]) => median(values);
  console.log('\nRouter vs bare proxy, back to back (the fast node behind each; median of round medians)');
  console.log('target      sequential µs   req/s c=16   req/s c=64   CPU µs/req c=64   stream first byte ms');
  for (const target of ['direct', 'proxy', 'router'] as const) {
    console.log(
      `${target.padEnd(12)}${formatNumber(m(figures.latency[target])).padStart(13)}${formatNumber(m(figures.c16[target]), 0).padStart(13)}${formatNumber(m(figures.c64[target]), 0).padStart(13)}${formatNumber(m(figures.cpu64[target])).padStart(18)}${formatNumber(m(figures.firstByte[target]), 2).padStart(23)}`,
    );
  }
  console.log(`${'frame'.padEnd(12)}${formatNumber(m(figures.latency.frame)).padStart(13)}`);
  const direct = m(figures.latency.direct);
  const proxyAdded = m(figures.latency.proxy) - direct;
  const routerAdded = m(figures.latency.router) - direct;
  const frameAdded = m(figures.latency.frame) - direct;
  console.log(
    `  sequential: the Lambda frame without routing adds ${formatSigned(frameAdded)} µs (${formatNumber(frameAdded / proxyAdded, 2)}× the proxy's), routing ${formatSigned(routerAdded - frameAdded)} µs more`,
  );
  console.log(
    `  streaming back to back: the router's first byte ${formatSigned(m(figures.firstByte.router) - m(figures.firstByte.proxy), 2)} ms after the proxy's`,
  );
  const share64 = m(figures.c64.router) / m(figures.c64.proxy);
  const cpuRatio = m(figures.cpu64.router) / m(figures.cpu64.proxy);
  return [
    {
      what: 'sequential added latency, non-streaming chat, keep-alive: against the bare proxy',
      measured: `router +${formatNumber(routerAdded)} µs vs proxy +${formatNumber(proxyAdded)} µs (${formatNumber(routerAdded / proxyAdded, 2)}×)`,
      budget: `≤ ${SEQUENTIAL_RATIO}× the bare proxy`,
      ok: routerAdded <= SEQUENTIAL_RATIO * proxyAdded,
    },
    {
      what: 'sequential added latency: against the frame relay (the Lambda frame without routing)',
      measured: `router +${formatNumber(routerAdded)} µs vs frame +${formatNumber(frameAdded)} µs (${formatSigned(routerAdded - frameAdded)} µs)`,
      budget: `≤ the frame's + ${SEQUENTIAL_OVER_FRAME_MICROS} µs`,
      ok: routerAdded <= frameAdded + SEQUENTIAL_OVER_FRAME_MICROS,
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
      what: 'every chunk forwarded, fast streams back to back',
      measured: figures.linesOk
        ? `${STREAM_LINES} lines in, ${STREAM_LINES} out, every request`
        : 'lines lost or merged',
      budget: 'equal',
      ok: figures.linesOk,
    },
  ];
}
