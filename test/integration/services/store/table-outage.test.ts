import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { StoreUnavailableError } from '../../../../lib/core/errors';
import { createDynamoClient } from '../../../../lib/services/store/client';
import { ensureTable } from '../../../../lib/services/store/ensure-table';
import { dynamoSdk } from '../../../../lib/services/store/sdk';
import { openTable } from '../../../../lib/services/store/table';
import { createWriteBehind } from '../../../../lib/services/store/write-behind';
import { type HungServer, startHungServer } from '../../../helpers/hung-server';
import { outcomeWithin } from '../../../helpers/outcome-within';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

/** A table endpoint that accepts connections and never answers: a stand-in that was stopped (SIGSTOP). */
let hung: HungServer;
let hungEndpoint: string;
let store: StoreFixture;

beforeAll(async () => {
  hung = await startHungServer();
  hungEndpoint = hung.url;
  store = await startStore('outage');
});

afterAll(async () => {
  await hung.close();
  await store.close();
});

async function deleteTable(): Promise<void> {
  await store.client.send(new (dynamoSdk().DeleteTableCommand)({ TableName: store.tableName }));
}

describe('the table while it is stopped or gone', () => {
  it('gives up on a read from a table that never answers once its deadline passes, SDK retries included', async () => {
    const table = openTable(createDynamoClient({ dynamodbEndpoint: hungEndpoint }), 'fleet-router', { timeoutMs: 300 });

    expect(await outcomeWithin(table.queryDocs('NODE'))).toBe('rejected');
    expect(await outcomeWithin(table.getDoc('NODE', 'a'))).toBe('rejected');
  });

  it('fails a call to a table that never answers, or refuses, as unavailable: 503 with Retry-After', async () => {
    const hungTable = openTable(createDynamoClient({ dynamodbEndpoint: hungEndpoint }), 'fleet-router', {
      timeoutMs: 300,
    });
    // A port nothing listens on: taken, then closed.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refusingTable = openTable(
      createDynamoClient({ dynamodbEndpoint: `http://127.0.0.1:${port}` }),
      'fleet-router',
      {
        timeoutMs: 2000,
      },
    );

    for (const table of [hungTable, refusingTable]) {
      const failure = await table.getDoc('NODE', 'a').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(failure).toMatchObject({ status: 503, code: 'store_unavailable', retryAfterSeconds: 1 });
    }
  });

  it("passes the table's answers about the data through as the SDK threw them", async () => {
    const table = openTable(store.client, store.tableName, { log: () => {} });
    // A key of the wrong type: the table's ValidationException, an answer, not an outage.
    const failure = await table.getDoc('', 'a').catch((error: unknown) => error);

    expect(failure).not.toBeInstanceOf(StoreUnavailableError);
    expect(failure).toMatchObject({ name: 'ValidationException' });
  });

  it('creates a vanished table again on a read, which then answers', async () => {
    const table = openTable(store.client, store.tableName, {
      recreate: () => ensureTable(store.client, store.tableName),
      log: () => {},
    });
    await table.putDoc({ pk: 'P', sk: 'before', doc: '{}' });
    await deleteTable();

    expect(await table.queryDocs('P')).toEqual([]);
    await table.putDoc({ pk: 'P', sk: 'after', doc: '{}' });
    expect((await table.queryDocs('P')).map((item) => item.sk)).toEqual(['after']);
  });

  it('creates a vanished table again when the write-behind flushes, and loses nothing queued', async () => {
    const table = openTable(store.client, store.tableName, {
      recreate: () => ensureTable(store.client, store.tableName),
      log: () => {},
    });
    const writes = createWriteBehind(table, { maxFlushAttempts: 1, onError: () => {} });
    writes.put({ pk: 'W', sk: 'first', doc: '{}' });
    await writes.flush();
    await deleteTable();

    writes.put({ pk: 'W', sk: 'second', doc: '{}' });
    writes.add('W', 'counter', { requests: 1 });
    await writes.flush();

    expect((await table.queryDocs('W')).map((item) => item.sk)).toEqual(['counter', 'second']);
    await writes.close();
  });
});
