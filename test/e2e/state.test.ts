/**
 * Where state lives and who may reach it, end to end: the embedded table persists under
 * FLEET_DATA_DIR across restarts, FLEET_DYNAMODB_ENDPOINT points the router at another DynamoDB, and
 * FLEET_API_KEYS closes every endpoint but the liveness probe and the heartbeats, which take the node
 * agents' own keys (FLEET_NODE_KEYS).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import { startDynamo } from '../../emulator/dynamo';
import { type SimAgent, startSimAgent } from '../../emulator/sim';
import { createDynamoClient } from '../../lib/services/store/client';
import { createNodeRepository } from '../../lib/services/store/node-repository';
import { openTable } from '../../lib/services/store/table';
import { eventually, type RouterProcess, startRouter } from './router-process';

const cleanups: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function router(env: Record<string, string>): Promise<RouterProcess> {
  const started = await startRouter(env);
  cleanups.push(() => started.stop());
  return started;
}

async function agentFor(url: string, nodeId: string, nodeKey?: string): Promise<SimAgent> {
  const agent = await startSimAgent({
    nodeId,
    routerUrl: url,
    intervalMs: 60_000,
    ...(nodeKey === undefined ? {} : { nodeKey }),
  });
  cleanups.push(() => agent.stop());
  return agent;
}

async function nodeIds(url: string, headers: Record<string, string> = {}): Promise<string[]> {
  const response = await fetch(`${url}/fleet/status`, { headers });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { nodes: { node_id: string }[] };
  return body.nodes.map((node) => node.node_id);
}

describe('router state', () => {
  it('keeps the fleet in FLEET_DATA_DIR across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fleet-data-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await router({ FLEET_DATA_DIR: dataDir });
    await (await agentFor(first.url, 'persisted')).sendHeartbeat();
    await eventually(async () => expect(await nodeIds(first.url)).toEqual(['persisted']));
    await first.stop();

    const second = await router({ FLEET_DATA_DIR: dataDir });

    expect(await nodeIds(second.url)).toEqual(['persisted']);
    await second.stop();
  }, 30_000);

  it('uses the DynamoDB named by FLEET_DYNAMODB_ENDPOINT instead of its own', async () => {
    const dynamo = await startDynamo({ dataDir: ':memory:', port: 0 });
    cleanups.push(() => dynamo.close());
    const external = await router({ FLEET_DYNAMODB_ENDPOINT: dynamo.endpoint, FLEET_TABLE: 'fleet-external' });

    await (await agentFor(external.url, 'external-node')).sendHeartbeat();

    const repository = createNodeRepository(
      openTable(createDynamoClient({ dynamodbEndpoint: dynamo.endpoint }), 'fleet-external'),
    );
    expect((await repository.list()).map((record) => record.id)).toEqual(['external-node']);
  }, 30_000);

  it('requires a client key everywhere but the liveness probe and heartbeats when FLEET_API_KEYS is set', async () => {
    const closed = await router({ FLEET_API_KEYS: 'fleet-secret', FLEET_NODE_KEYS: 'node-secret' });
    const withKey = new Ollama({ host: closed.url, headers: { Authorization: 'Bearer fleet-secret' } });

    const probe = await fetch(`${closed.url}/`);
    const refused = await fetch(`${closed.url}/api/tags`);
    const heartbeatWithoutKey = await fetch(`${closed.url}/heartbeat`, { method: 'POST', body: '{}' });
    await (await agentFor(closed.url, 'keyed', 'node-secret')).sendHeartbeat();

    expect(probe.status).toBe(200);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'an API key is required' });
    expect(heartbeatWithoutKey.status).toBe(401);
    await eventually(async () => expect(await nodeIds(closed.url, { 'x-api-key': 'fleet-secret' })).toEqual(['keyed']));
    expect((await withKey.list()).models.length).toBeGreaterThan(0);
  }, 30_000);

  it('lets an agent with a node key join and serve traffic, and no client key heartbeat', async () => {
    const closed = await router({ FLEET_API_KEYS: 'fleet-secret', FLEET_NODE_KEYS: 'node-secret' });
    const client = new Ollama({ host: closed.url, headers: { Authorization: 'Bearer fleet-secret' } });
    const intruder = await agentFor(closed.url, 'intruder', 'fleet-secret');
    const agent = await agentFor(closed.url, 'node-keyed', 'node-secret');

    await expect(intruder.sendHeartbeat()).rejects.toThrow(/401/);
    await agent.sendHeartbeat();
    const before = agent.node.requests.length;
    const reply = await eventually(() =>
      client.chat({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hello' }] }),
    );

    expect(reply.message.role).toBe('assistant');
    expect(agent.node.requests.slice(before).map((request) => request.path)).toContain('/api/chat');
    expect(await nodeIds(closed.url, { 'x-api-key': 'fleet-secret' })).toEqual(['node-keyed']);
  }, 30_000);
});
