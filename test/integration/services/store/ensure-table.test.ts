import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDynamo } from '../../../../emulator/dynamo';
import { createDynamoClient } from '../../../../lib/services/store/client';
import { ensureTable } from '../../../../lib/services/store/ensure-table';
import { uniqueTableName } from '../../../helpers/store-fixture';

describe('ensureTable', () => {
  let dynamo: Awaited<ReturnType<typeof startDynamo>>;
  let client: DynamoDBClient;

  beforeAll(async () => {
    dynamo = await startDynamo({ dataDir: ':memory:', port: 0 });
    client = createDynamoClient({ dynamodbEndpoint: dynamo.endpoint });
  });

  afterAll(async () => {
    await dynamo.close();
  });

  it('creates the table with pk/sk, the gsi1 index and on-demand billing', async () => {
    const name = uniqueTableName('ensure');

    const result = await ensureTable(client, name);

    expect(result).toBe('created');
    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(table?.TableStatus).toBe('ACTIVE');
    expect(table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    const gsi = table?.GlobalSecondaryIndexes?.[0];
    expect(gsi?.IndexName).toBe('gsi1');
    expect(gsi?.KeySchema?.map((key) => key.AttributeName)).toEqual(['gsi1pk', 'gsi1sk']);
    expect(gsi?.Projection?.ProjectionType).toBe('ALL');
  });

  it('is idempotent', async () => {
    const name = uniqueTableName('idempotent');

    const first = await ensureTable(client, name);
    const second = await ensureTable(client, name);

    expect([first, second]).toEqual(['created', 'existed']);
  });

  it('lets concurrent callers race: one creates, all succeed', async () => {
    const name = uniqueTableName('race');

    const results = await Promise.all(Array.from({ length: 6 }, () => ensureTable(client, name)));

    expect(results.filter((result) => result === 'created')).toHaveLength(1);
    expect(results.filter((result) => result === 'existed')).toHaveLength(5);
  });

  it('refuses an existing table with another key schema', async () => {
    const name = uniqueTableName('wrong');
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );

    await expect(ensureTable(client, name)).rejects.toThrow(/expected pk\/sk and gsi1pk\/gsi1sk/);
  });
});

describe('ensureTable on a table still being deleted', () => {
  // A stand-in that, as DynamoDB does, keeps a deleted table DELETING for a while and refuses to create
  // another of its name until it is gone.
  let server: Server;
  let client: DynamoDBClient;

  beforeAll(async () => {
    const dynalite = require('dynalite') as (options: object) => Server;
    server = dynalite({ createTableMs: 0, deleteTableMs: 300, updateTableMs: 0 });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    client = createDynamoClient({ dynamodbEndpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('waits the deletion out and creates the table again', async () => {
    const name = uniqueTableName('deleting');
    await ensureTable(client, name);
    await client.send(new DeleteTableCommand({ TableName: name }));
    const { Table: deleting } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(deleting?.TableStatus).toBe('DELETING');

    await expect(ensureTable(client, name, { timeoutMs: 10_000 })).resolves.toBe('created');

    const { Table: table } = await client.send(new DescribeTableCommand({ TableName: name }));
    expect(table?.TableStatus).toBe('ACTIVE');
  });
});
