/**
 * `POST /heartbeat` as a feature (lib/features/heartbeat/serve-heartbeat): it records what the agent sent
 * through the registry it is given, with the peer's address, and answers what the registry answers.
 * The registry is a recording stand-in: admission and storage are lib/services/registry's (tested there).
 */
import { describe, expect, it } from '@jest/globals';
import type { HeartbeatDeps } from '../../../../lib/features/heartbeat/serve-heartbeat';
import { serveHeartbeat } from '../../../../lib/features/heartbeat/serve-heartbeat';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { makeHeartbeat } from '../../../helpers/factories';

interface Recorded {
  readonly calls: { kind: 'heartbeat' | 'drain'; nodeId: string; peerIp: string | undefined }[];
}

function recordingRegistry(): HeartbeatDeps['registry'] & Recorded {
  const calls: Recorded['calls'] = [];
  return {
    calls,
    async recordHeartbeat(payload, peerIp) {
      calls.push({ kind: 'heartbeat', nodeId: payload.node_id, peerIp });
      return { status: 'ok', node_id: payload.node_id, node_status: 'online' };
    },
    async recordDrain(nodeId, peerIp) {
      calls.push({ kind: 'drain', nodeId, peerIp });
      return { status: 'draining', node_id: nodeId, node_status: 'draining' };
    },
  };
}

async function post(registry: HeartbeatDeps['registry'], body: object) {
  const { sink, result } = createBufferedSink();
  const request = toHttpRequest(makeHttpEvent({ method: 'POST', path: '/heartbeat', body, sourceIp: '10.1.2.3' }));
  await serveHeartbeat({ registry }, request, sink);
  return result();
}

describe('serveHeartbeat', () => {
  it("records a full heartbeat with the peer's address and answers the registry's reply", async () => {
    const registry = recordingRegistry();

    const reply = await post(registry, makeHeartbeat({ node_id: 'gpu7' }));

    expect(registry.calls).toEqual([{ kind: 'heartbeat', nodeId: 'gpu7', peerIp: '10.1.2.3' }]);
    expect(reply.statusCode).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ status: 'ok', node_id: 'gpu7', node_status: 'online' });
  });

  it('records a drain notice as a drain, not as a heartbeat', async () => {
    const registry = recordingRegistry();

    const reply = await post(registry, { node_id: 'gpu7', draining: true });

    expect(registry.calls).toEqual([{ kind: 'drain', nodeId: 'gpu7', peerIp: '10.1.2.3' }]);
    expect(JSON.parse(reply.body)).toEqual({ status: 'draining', node_id: 'gpu7', node_status: 'draining' });
  });

  it('refuses a payload that is neither, before the registry is asked', async () => {
    const registry = recordingRegistry();

    await expect(post(registry, { node_id: 'gpu7' })).rejects.toMatchObject({ status: 400 });
    expect(registry.calls).toEqual([]);
  });
});
