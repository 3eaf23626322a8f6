/**
 * The router's services on the table stand-in, in front of one scripted node (`gpu1`, serving `model`
 * hot): for handler tests of the chat path that need a node to answer exactly as written.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../../lib/config';
import { initServices, type Services } from '../../../lib/services';
import { makeLoadedModel, makeNodeModel, makeNodeRecord } from '../../helpers/factories';
import { startStore } from '../store/store-fixture';

export interface OneNodeFixture {
  readonly services: Services;
  close(): Promise<void>;
}

/** `answer` gets each request once its body was read. */
export async function startOneNode(
  label: string,
  model: string,
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<OneNodeFixture> {
  const store = await startStore(label);
  const node = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(request, response));
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  const services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  await services.registry.save(
    makeNodeRecord({
      id: 'gpu1',
      url,
      lastSeenAt: Date.now() + 3_600_000,
      models: [makeNodeModel({ name: model })],
      loaded: [makeLoadedModel({ name: model })],
    }),
  );
  await services.registry.refresh();
  return {
    services,
    async close() {
      await services.writeBehind.close();
      await new Promise((resolve) => node.close(resolve));
      await store.close();
    },
  };
}
