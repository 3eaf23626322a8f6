/**
 * `DELETE /api/delete` through `functions/ollama` in process on the buffered host (serverless-offline;
 * the streaming host is the emulator's, driven end to end in test/e2e/model-admin), on the in-process
 * table against a simulated Ollama node: Ollama's empty 200, the record updated before the reply, 404.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { routes } from '../../functions/ollama';
import { initServices, type Services } from '../../lib/instance';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeNodeModel, makeNodeRecord } from '../helpers/factories';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;
let node: SimNode;

const handler = createBufferedHandler(() => routes(services));
const remove = (body: object) => handler(makeHttpEvent({ method: 'DELETE', path: '/api/delete', body }));

beforeAll(async () => {
  store = await startStore('serve-delete');
  node = await startSimNode({ id: 'sim', models: CATALOG.filter((entry) => entry.name === 'qwen3:8b') });
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  await services.registry.save(
    makeNodeRecord({
      id: 'sim',
      source: 'agent',
      url: node.url,
      lastSeenAt: Date.now() + 3_600_000,
      models: [makeNodeModel({ name: 'qwen3:8b' })],
      loaded: [],
    }),
  );
  await services.registry.refresh();
});

afterAll(async () => {
  await closeServices(services);
  await node.close();
  await store.close();
});

describe('DELETE /api/delete in process (buffered host)', () => {
  it("answers Ollama's empty 200 and takes the model off the node's record before replying", async () => {
    const reply = await remove({ name: 'qwen3:8b' });

    expect(reply.statusCode).toBe(200);
    expect(reply.body).toBe('');
    expect(reply.headers?.['x-fleet-nodes']).toBe('sim');
    expect((await services.registry.record('sim'))?.models.map((model) => model.name)).toEqual([]);
    expect(node.snapshot().models).toEqual([]);
  });

  it("answers 404 in Ollama's shape once no node holds it", async () => {
    const reply = await remove({ model: 'qwen3:8b' });

    expect(reply.statusCode).toBe(404);
    expect(JSON.parse(reply.body)).toEqual({ error: "model 'qwen3:8b' not found" });
  });
});
