/**
 * `/fleet/status` and `/fleet/queue` as features (lib/features/fleet-status): the snapshot, every
 * instance's queues and the freshness are read at one instant (the `now` the queues are asked for) and
 * shown through the pure views; the status adds the ejection states of this instance. The registry and
 * the queue view are stand-ins; the views are tested in test/unit/core/views.
 */
import { describe, expect, it } from '@jest/globals';
import type { QueueState } from '../../../../lib/core/fleet/queue-entry';
import { STRATEGIES } from '../../../../lib/core/scoring/routing-strategy';
import { toFleetQueue } from '../../../../lib/core/views/fleet-queue';
import { toFleetStatus } from '../../../../lib/core/views/fleet-status';
import { mergeQueues } from '../../../../lib/core/views/merge-queues';
import { queuesFromSnapshot } from '../../../../lib/core/views/queues-from-snapshot';
import type { FleetQueueDeps, FleetStatusDeps } from '../../../../lib/features/fleet-status/serve-fleet-views';
import { serveFleetQueue, serveFleetStatus } from '../../../../lib/features/fleet-status/serve-fleet-views';
import { createNodeRates } from '../../../../lib/services/dispatch/node-rates';
import { createOutlierEjection } from '../../../../lib/services/dispatch/outlier-ejection';
import { createQueueManager } from '../../../../lib/services/dispatch/queue-manager';
import { type HttpRequest, toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink, type ResponseSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { makeQueueState } from '../../../helpers/factories';
import { smallFleet } from '../../../helpers/small-fleet';

const snapshot = smallFleet();
const freshness = { ageMs: 1200, refreshFailed: false };
const routed: QueueState[] = [makeQueueState({ nodeId: 'gpu1', model: 'llama3.2:3b', pending: 2, inFlight: 1 })];

function standIns(): FleetStatusDeps & FleetQueueDeps & { readonly asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    registry: { snapshot: async () => snapshot, freshness: () => freshness },
    async queueView(now) {
      asked.push(now);
      return routed;
    },
    routing: {
      ejection: createOutlierEjection(),
      queues: createQueueManager(),
      rates,
      strategy: STRATEGIES['least-busy'],
    },
    config: { queueMaxPending: 40, queueTimeoutMs: 90_000 },
  };
}

async function get<Deps>(
  serve: (deps: Deps, request: HttpRequest, response: ResponseSink) => Promise<void>,
  deps: Deps,
  path: string,
) {
  const { sink, result } = createBufferedSink();
  await serve(deps, toHttpRequest(makeHttpEvent({ path })), sink);
  const reply = result();
  return { statusCode: reply.statusCode, body: JSON.parse(reply.body) as unknown };
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const rates = createNodeRates();
rates.observe('gpu1', 'llama3.2:3b', { promptTokens: 1000, promptEvalMs: 800, completionTokens: 100, evalMs: 2000 });

describe('serveFleetQueue', () => {
  it("answers the queue view of the snapshot's and every instance's queues at the instant it asked for", async () => {
    const deps = standIns();

    const reply = await get(serveFleetQueue, deps, '/fleet/queue');

    expect(deps.asked).toHaveLength(1);
    const now = deps.asked[0] ?? Number.NaN;
    const queues = mergeQueues(queuesFromSnapshot(snapshot), routed);
    const admission = { max_pending: 40, timeout_ms: 90_000 };
    expect(reply).toEqual({ statusCode: 200, body: asJson(toFleetQueue(snapshot, queues, now, admission)) });
  });
});

describe('serveFleetStatus', () => {
  it('answers the status view with the same queues, no ejected node, and the snapshot freshness', async () => {
    const deps = standIns();

    const reply = await get(serveFleetStatus, deps, '/fleet/status');

    expect(deps.asked).toHaveLength(1);
    const now = deps.asked[0] ?? Number.NaN;
    const queues = mergeQueues(queuesFromSnapshot(snapshot), routed);
    const routing = { strategy: 'least-busy', rates: rates.entries() };
    expect(reply).toEqual({
      statusCode: 200,
      body: asJson(toFleetStatus(snapshot, queues, now, [], freshness, routing)),
    });
  });

  it('says which strategy routes and the rates this instance observed', async () => {
    const reply = await get(serveFleetStatus, standIns(), '/fleet/status');

    expect((reply.body as { routing: unknown }).routing).toEqual({
      strategy: 'least-busy',
      observed_rates: [
        {
          node_id: 'gpu1',
          model: 'llama3.2:3b',
          prefill_tokens_per_second: 1250,
          decode_tokens_per_second: 50,
          cold_load_ms: null,
          samples: 1,
        },
      ],
    });
  });
});
