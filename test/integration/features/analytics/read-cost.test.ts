/**
 * Issue 22 item 1: a 30-day `models` and `usage` read costs the same table calls whether the fleet served
 * a thousand requests or ten million. Each fleet's rollups are seeded directly — 30 days × 3 nodes × 4
 * models, each item the sum of `traceIncrements` scaled to its share — the ten-million fleet with a much
 * wider spread of latencies and prompt sizes (so fuller histograms, larger items). Table calls are
 * counted by a middleware on the DynamoDB client the read goes through.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type RollupTrace, traceIncrements } from '../../../../lib/core/analytics/rollup';
import { type TimeWindow, utcDaysIn } from '../../../../lib/core/analytics/window';
import { serveModels } from '../../../../lib/features/analytics/serve-models';
import { serveUsage } from '../../../../lib/features/analytics/serve-usage';
import { createReadCache } from '../../../../lib/services/analytics/read-cache';
import { createRollupReader } from '../../../../lib/services/analytics/rollup-reader';
import { createDynamoClient } from '../../../../lib/services/store/client';
import { dayRollupKey } from '../../../../lib/services/store/keys';
import { openTable, type Table } from '../../../../lib/services/store/table';
import { makeHttpEvent } from '../../../helpers/events';
import { HOSTS } from '../../../helpers/hosts';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

const DAY = 86_400_000;
/** Noon UTC today: a 30-day window overlaps 31 UTC days. */
const NOW = Math.floor(Date.now() / DAY) * DAY + DAY / 2;
const NODES = ['gpu-1', 'gpu-2', 'gpu-3'];
const MODELS = ['llama3:8b', 'qwen3:32b', 'gemma3:27b', 'nomic-embed-text'];

/** `count` request shapes spread from 10 ms to 10 minutes and from 1 to 100k prompt tokens. */
function shapes(count: number): RollupTrace[] {
  return Array.from({ length: count }, (_, index) => {
    const position = count === 1 ? 0 : index / (count - 1);
    return {
      startedAt: NOW,
      style: 'openai-chat',
      status: index % 7 === 3 ? 'failed' : 'completed',
      latencyMs: Math.round(10 * 60_000 ** position),
      timeToFirstTokenMs: Math.round(5 * 1000 ** position),
      promptTokens: Math.round(100_000 ** position),
      completionTokens: 1 + (index % 500),
      retries: index % 5 === 0 ? 1 : 0,
    };
  });
}

/** `total` split over `parts` as evenly as whole numbers allow. */
const share = (total: number, parts: number, index: number) =>
  Math.floor((total * (index + 1)) / parts) - Math.floor((total * index) / parts);

async function seed(table: Table, requests: number, traceShapes: readonly RollupTrace[]): Promise<void> {
  const days = Array.from({ length: 30 }, (_, index) => NOW - index * DAY);
  const items = days.flatMap((day) => NODES.flatMap((nodeId) => MODELS.map((model) => ({ day, nodeId, model }))));
  for (const [index, { day, nodeId, model }] of items.entries()) {
    const itemRequests = share(requests, items.length, index);
    const counters: Record<string, number> = {};
    traceShapes.forEach((shape, shapeIndex) => {
      const times = share(itemRequests, traceShapes.length, shapeIndex);
      for (const [name, amount] of Object.entries(traceIncrements(shape).counters))
        counters[name] = (counters[name] ?? 0) + amount * times;
    });
    const key = dayRollupKey(day, { kind: 'node-model', nodeId, model });
    await table.addCounters(key.pk, key.sk, counters);
  }
}

interface Measured {
  readonly calls: readonly string[];
  /** The whole request, and the rollup read in it (table calls and reading the items back). */
  readonly ms: number;
  readonly readMs: number;
  readonly body: { data?: { request_count: number }[]; summary?: { total_requests: number }[] };
}

let store: StoreFixture;
let largeStore: StoreFixture;
let small: Table;
let large: Table;
const calls: string[] = [];

beforeAll(async () => {
  store = await startStore('read-cost');
  largeStore = await startStore('read-cost-large');
  const counted = (endpoint: string, name: string) => {
    const client = createDynamoClient({ dynamodbEndpoint: endpoint });
    client.middlewareStack.add(
      (next, context) => async (args) => {
        calls.push(context.commandName ?? 'unknown');
        return next(args);
      },
      { step: 'initialize', name: 'countTableCalls' },
    );
    return openTable(client, name);
  };
  small = counted(store.endpoint, store.tableName);
  large = counted(largeStore.endpoint, largeStore.tableName);
  await seed(small, 1_000, shapes(3));
  await seed(large, 10_000_000, shapes(60));
}, 120_000);

afterAll(async () => {
  await store.close();
  await largeStore.close();
});

async function measure(table: Table, route: 'usage' | 'models'): Promise<Measured> {
  const reader = createRollupReader(table);
  let readMs = 0;
  const rollups = {
    nodeModelDays: async (window: TimeWindow) => {
      const started = performance.now();
      const rows = await reader.nodeModelDays(window);
      readMs += performance.now() - started;
      return rows;
    },
  };
  const deps = { rollups, analyticsCache: createReadCache(), clock: () => NOW };
  const serve = route === 'usage' ? serveUsage : serveModels;
  const [, host] = HOSTS[0] as (typeof HOSTS)[number];
  calls.length = 0;
  const started = performance.now();
  const reply = await host(
    { [`GET /dashboard/api/${route}`]: (request, response) => serve(deps, request, response) },
    makeHttpEvent({ method: 'GET', path: `/dashboard/api/${route}`, query: { days: '30' } }),
  );
  const ms = performance.now() - started;
  expect(reply.statusCode).toBe(200);
  return { calls: [...calls], ms, readMs, body: JSON.parse(reply.body) };
}

describe('a 30-day analytics read', () => {
  it.each(['usage', 'models'] as const)(
    '%s costs the same table calls at 1,000 and 10,000,000 requests',
    async (route) => {
      const few = await measure(small, route);
      const many = await measure(large, route);

      const sum = (body: Measured['body']) =>
        (body.data ?? []).reduce((total, row) => total + row.request_count, 0) +
        (body.summary ?? []).reduce((total, row) => total + row.total_requests, 0);
      expect([sum(few.body), sum(many.body)]).toEqual([1_000, 10_000_000]);
      // One Query per UTC day the window overlaps, nothing else: no Scan, no trace read.
      const days = utcDaysIn({ startMs: NOW - 30 * DAY, endMs: NOW }).length;
      expect(days).toBe(31);
      expect(few.calls).toEqual(Array(days).fill('QueryCommand'));
      expect(many.calls).toEqual(few.calls);
      console.log(
        `30-day ${route}: ${few.calls.length} table calls at 1,000 requests (${few.ms.toFixed(1)} ms, ` +
          `${few.readMs.toFixed(1)} in the read), ${many.calls.length} at 10,000,000 (${many.ms.toFixed(1)} ms, ` +
          `${many.readMs.toFixed(1)} in the read)`,
      );
    },
    // dynalite serves the large items slowly on a shared machine; the assertion is on calls, not time.
    60_000,
  );
});
