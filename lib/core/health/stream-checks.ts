/**
 * Health checks on how answers reach clients (issue 22 item 3, from the hourly rollups): clients that
 * leave before the end, streams the node cut, the time to first token and the decode rate of a model
 * against its own baseline (the hours before the last one). Medians, not means, so one cold load does
 * not read as a slow model; minimum sample counts, so a quiet hour fires nothing. Pure.
 */
import { percentile } from '../analytics/histogram';
import type { Rollup } from '../analytics/rollup';
import { finding, type HealthChecks, type HealthFinding } from './health-finding';
import { pct, ratio, sumsBy, windowSums } from './health-inputs';
import { noTraffic } from './skip-reasons';

export const DISCONNECTS_MIN = 3;
export const DISCONNECT_RATE = 0.01;
export const INCOMPLETE_MIN = 2;
export const INCOMPLETE_RATE = 0.005;
/** TTFT: the last hour's median at least this many times the baseline's, and at least `SLOW_TTFT_MS`. */
export const TTFT_SLOWDOWN = 2;
export const SLOW_TTFT_MS = 1000;
export const TTFT_MIN_RECENT = 5;
export const TTFT_MIN_BASELINE = 20;
/** Decode rate: the last hour's below this share of the baseline's. */
export const DECODE_DROP = 0.5;
export const DECODE_MIN_RECENT_TOKENS = 200;
export const DECODE_MIN_BASELINE_TOKENS = 1000;

interface EndedEarly {
  readonly checkId: string;
  readonly counter: 'client_disconnected' | 'incomplete';
  readonly min: number;
  readonly rate: number;
  readonly what: string;
  readonly fix: string;
}

function endedEarly(day: Rollup, recent: Rollup, spec: EndedEarly): HealthFinding[] {
  const count = day.counters[spec.counter];
  const rate = ratio(count, day.counters.requests) ?? 0;
  if (count < spec.min || rate <= spec.rate) return [];
  const recentCount = recent.counters[spec.counter];
  return [
    finding(spec.checkId, {
      severity: recentCount > 0 ? 'warning' : 'info',
      title: `${count} ${spec.what} in 24 h (${pct(rate)} %)`,
      description: `${count} of ${day.counters.requests} requests in 24 h ended early: ${spec.what}; ${recentCount} in the last hour.`,
      fix: spec.fix,
      data: { count_24h: count, rate_pct: pct(rate), last_hour: recentCount },
    }),
  ];
}

const decodeRate = (rollup: Rollup) =>
  rollup.counters.decode_ms > 0 ? (1000 * rollup.counters.decode_tokens) / rollup.counters.decode_ms : undefined;

export const STREAM_CHECKS: HealthChecks = {
  client_disconnects: {
    title: 'Clients leaving before the end',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) => {
      const { day, recent } = windowSums(traffic.fleetHours, now);
      return endedEarly(day, recent, {
        checkId: 'client_disconnects',
        counter: 'client_disconnected',
        min: DISCONNECTS_MIN,
        rate: DISCONNECT_RATE,
        what: 'clients left before the answer ended',
        fix: "Clients time out before the answer: raise the client's timeout, or find why answers are slow (TTFT, queueing).",
      });
    },
  },
  incomplete_streams: {
    title: 'Streams cut off by nodes',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) => {
      const { day, recent } = windowSums(traffic.fleetHours, now);
      return endedEarly(day, recent, {
        checkId: 'incomplete_streams',
        counter: 'incomplete',
        min: INCOMPLETE_MIN,
        rate: INCOMPLETE_RATE,
        what: 'streams the node cut off',
        fix: 'Nodes stop mid-answer: look for runner crashes or out-of-memory kills in the node logs.',
      });
    },
  },
  slow_ttft: {
    title: 'Time to first token against its baseline',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) =>
      [...sumsBy(traffic.modelHours, (row) => row.model, now)].flatMap(([model, { recent, before }]) => {
        if (recent.counters.ttft_count < TTFT_MIN_RECENT || before.counters.ttft_count < TTFT_MIN_BASELINE) return [];
        const recentMedian = percentile(recent.histograms.ttft_ms, 0.5);
        const baseline = percentile(before.histograms.ttft_ms, 0.5);
        if (recentMedian === undefined || baseline === undefined) return [];
        if (recentMedian < SLOW_TTFT_MS || recentMedian < TTFT_SLOWDOWN * baseline) return [];
        return [
          finding('slow_ttft', {
            severity: 'warning',
            title: `${model} takes ${Math.round(recentMedian)} ms to its first token`,
            description: `The median time to first token of ${model} in the last hour is ${Math.round(recentMedian)} ms, against ${Math.round(baseline)} ms before (±4.4 %).`,
            fix: 'Look for queueing, cold loads or a changed context length (a prompt reprocessed whole each turn).',
            data: {
              model,
              ttft_p50_last_hour_ms: Math.round(recentMedian),
              ttft_p50_baseline_ms: Math.round(baseline),
            },
          }),
        ];
      }),
  },
  decode_degraded: {
    title: 'Decode rate against its baseline',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) =>
      [...sumsBy(traffic.modelHours, (row) => row.model, now)].flatMap(([model, { recent, before }]) => {
        if (recent.counters.decode_tokens < DECODE_MIN_RECENT_TOKENS) return [];
        if (before.counters.decode_tokens < DECODE_MIN_BASELINE_TOKENS) return [];
        const current = decodeRate(recent);
        const baseline = decodeRate(before);
        if (current === undefined || baseline === undefined || current >= DECODE_DROP * baseline) return [];
        const round = (value: number) => Math.round(value * 10) / 10;
        return [
          finding('decode_degraded', {
            severity: 'warning',
            title: `${model} decodes at ${round(current)} tokens/s`,
            description: `${model} generated ${round(current)} tokens/s in the last hour, against ${round(baseline)} before.`,
            fix: 'Look for memory pressure, heat, or more parallel requests sharing the node than before.',
            data: { model, tokens_per_s_last_hour: round(current), tokens_per_s_baseline: round(baseline) },
          }),
        ];
      }),
  },
};
