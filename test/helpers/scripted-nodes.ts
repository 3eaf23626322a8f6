/**
 * The router's services on the table stand-in, in front of scripted nodes that answer exactly as a test
 * writes: for handler tests of the chat path. `startOneNode` is the common case, one node `gpu1` serving
 * `model` hot.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeRecord } from '../../lib/core/fleet/node';
import { initServices, type Services } from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';
import { makeLoadedModel, makeNodeModel, makeNodeRecord } from './factories';
import { startStore } from './store-fixture';

export interface ScriptedNodesFixture {
  readonly services: Services;
  close(): Promise<void>;
}

/** Gets each request once its body was read (as `body`). */
export type ScriptedAnswer = (request: IncomingMessage, response: ServerResponse, body: string) => void;

export interface ScriptedNode {
  /** The node's record, its `url` and liveness filled in by the fixture. */
  readonly record: Partial<NodeRecord> & { readonly id: string };
  answer: ScriptedAnswer;
}

/** Starts one HTTP server per node, and services that know the nodes as online; `env` adds settings. */
export async function startScriptedNodes(
  label: string,
  nodes: readonly ScriptedNode[],
  env: Readonly<Record<string, string>> = {},
): Promise<ScriptedNodesFixture> {
  const store = await startStore(label);
  const servers: Server[] = [];
  const services = initServices(
    loadConfig({ ...env, FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }),
  );
  for (const node of nodes) {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => node.answer(request, response, Buffer.concat(chunks).toString('utf8')));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await services.registry.save(makeNodeRecord({ ...node.record, url, lastSeenAt: Date.now() + 3_600_000 }));
  }
  await services.registry.refresh();
  return {
    services,
    async close() {
      await services.writeBehind.close();
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      await store.close();
    },
  };
}

export function startOneNode(label: string, model: string, answer: ScriptedAnswer): Promise<ScriptedNodesFixture> {
  return startScriptedNodes(label, [
    {
      record: { id: 'gpu1', models: [makeNodeModel({ name: model })], loaded: [makeLoadedModel({ name: model })] },
      answer,
    },
  ]);
}
