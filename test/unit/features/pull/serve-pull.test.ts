/**
 * `servePull` goes through the one exchange (lib/services/dispatch/routed-exchange), reached as a named
 * node: in process, on a fake fleet and a fake table, with the module's `exchange` watched. The refusals
 * that need no node — an unknown `node_id`, a pull already under way — are the exchange's to trace, once;
 * a body refused before the fleet is read leaves no trace and never starts an exchange. (The node's
 * stream is test/handlers/serve-pull.test.ts's and test/e2e/pull.test.ts's.)
 */
import { beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import type { servePull as ServePull } from '../../../../lib/features/pull/serve-pull';
import { namedNode } from '../../../../lib/services/dispatch/named-node-reach';
import type * as RoutedExchange from '../../../../lib/services/dispatch/routed-exchange';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink } from '../../../../lib/services/http/response-sink';
import type { Table } from '../../../../lib/services/store/table';
import { makeHttpEvent } from '../../../helpers/events';
import { bareAgentNode, snapshotOf } from '../../../helpers/factories';

type LockItem = Parameters<Table['takeLease']>[0];

const EXCHANGE_MODULE = '../../../../lib/services/dispatch/routed-exchange';
const real = jest.requireActual<typeof RoutedExchange>(EXCHANGE_MODULE);
const exchangeSpy = jest.fn(real.exchange);
let servePull: typeof ServePull;

beforeAll(async () => {
  // serve-pull is loaded after the mock, so the `exchange` it calls is the watched one.
  jest.doMock(EXCHANGE_MODULE, () => ({ ...real, exchange: exchangeSpy }));
  ({ servePull } = await import('../../../../lib/features/pull/serve-pull'));
});

let traces: Trace[];
let lockHeld: boolean;
let locksTaken: { item: LockItem; untilMs: number; nowMs: number }[];
let renewals: number;
let releases: number;

const deps = {
  registry: {
    snapshot: async () => snapshotOf([bareAgentNode('gpu1', 100)]),
    recordModel: async () => true,
  },
  describe: async () => new Map(),
  table: {
    takeLease: async (item: LockItem, untilMs: number, nowMs: number) => {
      locksTaken.push({ item, untilMs, nowMs });
      return !lockHeld;
    },
    renewLease: async () => {
      renewals += 1;
      return true;
    },
    deleteItem: async () => {
      releases += 1;
      return true;
    },
  },
  config: { pullLeaseMs: 90_000 },
  traces: {
    record: (trace: Trace) => {
      traces.push(trace);
    },
  },
};

beforeEach(() => {
  exchangeSpy.mockClear();
  traces = [];
  lockHeld = false;
  locksTaken = [];
  renewals = 0;
  releases = 0;
});

const pull = (body: object) => toHttpRequest(makeHttpEvent({ method: 'POST', path: '/api/pull', body }));

describe('servePull', () => {
  it('refuses an unknown node_id inside the exchange, which traces it once, failed, with no node', async () => {
    const call = servePull(deps, pull({ name: 'llama3', node_id: 'nope' }), createBufferedSink().sink);

    await expect(call).rejects.toMatchObject({ status: 404, message: "node 'nope' not found" });
    expect(exchangeSpy).toHaveBeenCalledTimes(1);
    expect(exchangeSpy.mock.calls[0]?.[0]).toBe(namedNode);
    expect(traces).toEqual([
      expect.objectContaining({
        style: 'pull',
        status: 'failed',
        requestedModel: 'llama3',
        error: "node 'nope' not found",
      }),
    ]);
    expect(traces[0]).not.toHaveProperty('nodeId');
    expect(locksTaken).toEqual([]);
  });

  it('answers 409 from the lock the exchange holds for the pull, traced once, failed, naming the node', async () => {
    lockHeld = true;

    const call = servePull(deps, pull({ name: 'llama3', node_id: 'gpu1' }), createBufferedSink().sink);

    await expect(call).rejects.toMatchObject({ status: 409, message: "model 'llama3' is already being pulled" });
    expect(exchangeSpy).toHaveBeenCalledTimes(1);
    expect(exchangeSpy.mock.calls[0]?.[0]).toBe(namedNode);
    expect(locksTaken.map((taken) => taken.item.pk)).toEqual([expect.stringContaining('llama3:latest')]);
    // The lease lapses FLEET_PULL_LEASE_MS after it was taken unless renewed, should this router die mid-pull.
    const taken = JSON.parse(String(locksTaken[0]?.item.doc ?? '{}')) as { startedAt: number };
    expect(locksTaken[0]?.nowMs).toBe(taken.startedAt);
    expect(locksTaken[0]?.untilMs).toBe(taken.startedAt + 90_000);
    expect(releases).toBe(0);
    expect(traces).toEqual([
      expect.objectContaining({
        style: 'pull',
        status: 'failed',
        nodeId: 'gpu1',
        servedModel: 'llama3',
        error: "model 'llama3' is already being pulled",
      }),
    ]);
    expect(traces[0]).not.toHaveProperty('score');
  });

  it('releases the lease of a pull its node never answered, and renews it no more', async () => {
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const shortLease = { ...deps, config: { pullLeaseMs: 1000 } };

    const call = servePull(shortLease, pull({ name: 'llama3', node_id: 'gpu1' }), createBufferedSink().sink);
    await expect(call).rejects.toMatchObject({ status: 502 });
    const releasedAtEnd = releases;
    // A slow host may renew while the node is being tried; after the end, renewals (every third of the
    // lease, 333 ms) would come no more.
    const renewedAtEnd = renewals;
    await new Promise((resolve) => setTimeout(resolve, 700));

    expect(locksTaken).toHaveLength(1);
    expect(releasedAtEnd).toBe(1);
    expect(renewals).toBe(renewedAtEnd);
    // Not even a renewal that finds the lease released and reports it lost: the timer is gone.
    expect(logged.mock.calls.filter((call) => String(call[0]).includes('pull lock'))).toEqual([]);
  });

  it('refuses a body without a name before any exchange, leaving no trace', async () => {
    const call = servePull(deps, pull({ stream: false }), createBufferedSink().sink);

    await expect(call).rejects.toMatchObject({ status: 400 });
    expect(exchangeSpy).not.toHaveBeenCalled();
    expect(traces).toEqual([]);
  });
});
