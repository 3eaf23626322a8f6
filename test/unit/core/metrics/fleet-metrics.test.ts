/**
 * `/metrics`'s exposition read back: every line is a HELP, a TYPE or a well-formed sample; label values
 * escaped; each histogram's buckets cumulative, their bounds the doubling bounds, `+Inf` = `_count`, and
 * each bucket's count exactly the values at most its bound.
 */
import { describe, expect, it } from '@jest/globals';
import { bucketOf } from '../../../../lib/core/analytics/histogram';
import { emptyRollup, type Rollup, rollupOf, traceIncrements } from '../../../../lib/core/analytics/rollup';
import { doublingBuckets } from '../../../../lib/core/metrics/doubling-buckets';
import { escapeLabelValue, renderExposition } from '../../../../lib/core/metrics/exposition';
import { fleetMetrics } from '../../../../lib/core/metrics/fleet-metrics';

const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const SAMPLE = new RegExp(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(${LABEL}(?:,${LABEL})*)\\})? (\\S+)$`);

interface ParsedSample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

function parse(text: string): { samples: ParsedSample[]; types: Map<string, string> } {
  expect(text.endsWith('\n')).toBe(true);
  const samples: ParsedSample[] = [];
  const types = new Map<string, string>();
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('# HELP ')) continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram)$/.exec(line);
    if (type !== null) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    const match = SAMPLE.exec(line);
    expect({ line, matches: match !== null }).toEqual({ line, matches: true });
    const labels: Record<string, string> = {};
    for (const pair of (match?.[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] as string] = (pair[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const raw = match?.[3] as string;
    samples.push({
      name: match?.[1] as string,
      labels,
      value: raw === '+Inf' ? Number.POSITIVE_INFINITY : Number(raw),
    });
  }
  return { samples, types };
}

function rollupOfLatencies(latencies: readonly number[], ttfts: readonly number[] = []): Rollup {
  const attributes: Record<string, number> = {};
  latencies.forEach((latencyMs, index) => {
    const ttft = ttfts[index];
    const { counters } = traceIncrements({
      startedAt: 0,
      style: 'openai-chat',
      status: index % 3 === 2 ? 'failed' : 'completed',
      latencyMs,
      ...(ttft !== undefined ? { timeToFirstTokenMs: ttft } : {}),
      promptTokens: 10,
      completionTokens: 5,
      retries: 0,
    });
    for (const [name, value] of Object.entries(counters)) attributes[name] = (attributes[name] ?? 0) + value;
  });
  return rollupOf(attributes);
}

const LATENCIES = [0, 1, 2, 3, 4, 7, 8, 1023, 1024, 1500, 65_535, 2_000_000];

describe('doublingBuckets', () => {
  it('counts exactly the whole-millisecond values at most each bound, and all of them at +Inf', () => {
    const histogram = new Map<number, number>();
    for (const value of LATENCIES) histogram.set(bucketOf(value), (histogram.get(bucketOf(value)) ?? 0) + 1);

    const buckets = doublingBuckets(histogram);

    for (const bucket of buckets) {
      expect({ le: bucket.le, count: bucket.count }).toEqual({
        le: bucket.le,
        count: LATENCIES.filter((value) => value <= bucket.le).length,
      });
    }
    expect(buckets.map((bucket) => bucket.le).slice(0, 5)).toEqual([0, 1, 3, 7, 15]);
  });
});

describe('renderExposition', () => {
  it('escapes backslashes, quotes and line feeds in label values', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
  });

  it('renders the fleet as well-formed lines with cumulative histograms whose +Inf is the count', () => {
    const text = renderExposition(
      fleetMetrics({
        totals: [
          { nodeId: 'gpu-1', model: 'qwen3:8b', rollup: rollupOfLatencies(LATENCIES, [5, 90, 300]) },
          { nodeId: 'gpu-2', model: 'odd "model"\\\nname', rollup: emptyRollup() },
        ],
        queues: [{ nodeId: 'gpu-1', model: 'qwen3:8b', pending: 2, inFlight: 1, concurrency: 4 }],
        nodes: [
          { nodeId: 'gpu-1', status: 'online', draining: false, modelsLoaded: 1 },
          { nodeId: 'gpu-2', status: 'offline', draining: false, modelsLoaded: undefined },
        ],
      }),
    );

    const { samples, types } = parse(text);
    expect(samples.some((sample) => sample.labels['model'] === 'odd "model"\\\nname')).toBe(true);
    for (const name of ['fleet_request_duration_seconds', 'fleet_time_to_first_token_seconds']) {
      expect(types.get(name)).toBe('histogram');
      for (const node of ['gpu-1', 'gpu-2']) {
        const buckets = samples.filter((s) => s.name === `${name}_bucket` && s.labels['node_id'] === node);
        const counts = buckets.map((s) => s.value);
        expect(counts).toEqual([...counts].sort((a, b) => a - b));
        expect(buckets.at(-1)?.labels['le']).toBe('+Inf');
        const count = samples.find((s) => s.name === `${name}_count` && s.labels['node_id'] === node);
        expect(buckets.at(-1)?.value).toBe(count?.value);
      }
    }
    const latency = (le: string) =>
      samples.find(
        (s) =>
          s.name === 'fleet_request_duration_seconds_bucket' &&
          s.labels['node_id'] === 'gpu-1' &&
          s.labels['le'] === le,
      )?.value;
    expect([latency('0'), latency('0.001'), latency('1.023'), latency('1048.575'), latency('+Inf')]).toEqual([
      1, 2, 8, 11, 12,
    ]);
    const requests = samples.filter((s) => s.name === 'fleet_requests_total' && s.labels['node_id'] === 'gpu-1');
    expect(Object.fromEntries(requests.map((s) => [s.labels['status'], s.value]))).toEqual({
      completed: 8,
      failed: 4,
      client_disconnected: 0,
      incomplete: 0,
    });
    expect(samples.filter((s) => s.name === 'fleet_node_status' && s.value === 1).map((s) => s.labels)).toEqual([
      { node_id: 'gpu-1', status: 'online' },
      { node_id: 'gpu-2', status: 'offline' },
    ]);
    expect(samples.filter((s) => s.name === 'fleet_node_models_loaded').map((s) => s.labels['node_id'])).toEqual([
      'gpu-1',
    ]);
    expect(samples.find((s) => s.name === 'fleet_queue_pending')?.value).toBe(2);
  });
});
