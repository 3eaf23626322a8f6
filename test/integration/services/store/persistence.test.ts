import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDynamo } from '../../../../emulator/dynamo';
import { createDynamoClient } from '../../../../lib/services/store/client';
import { ensureTable } from '../../../../lib/services/store/ensure-table';
import { openTable } from '../../../../lib/services/store/table';
import { uniqueTableName } from '../../../helpers/store-fixture';

describe('startDynamo on disk', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'fleet-dynamo-'));
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps tables and items across a restart on the same data dir', async () => {
    const tableName = uniqueTableName('disk');
    const first = await startDynamo({ dataDir, port: 0 });
    const firstClient = createDynamoClient({ dynamodbEndpoint: first.endpoint });
    expect(await ensureTable(firstClient, tableName)).toBe('created');
    await openTable(firstClient, tableName).putDoc({ pk: 'NODE', sk: 'kept', doc: '{"ok":true}' });
    await openTable(firstClient, tableName).addCounters('USAGE', 'H#1', { requests: 3 });
    await first.close();

    const second = await startDynamo({ dataDir, port: 0 });
    try {
      const secondClient = createDynamoClient({ dynamodbEndpoint: second.endpoint });
      expect(await ensureTable(secondClient, tableName)).toBe('existed');
      const table = openTable(secondClient, tableName);
      expect((await table.getDoc('NODE', 'kept'))?.doc).toBe('{"ok":true}');
      expect((await table.getDoc('USAGE', 'H#1'))?.attributes).toEqual({ requests: 3 });
    } finally {
      await second.close();
    }
    expect(await readdir(dataDir)).toEqual(['dynamodb']);
  });

  it('keeps nothing with :memory:', async () => {
    const tableName = uniqueTableName('memory');
    const first = await startDynamo({ dataDir: ':memory:' });
    await ensureTable(createDynamoClient({ dynamodbEndpoint: first.endpoint }), tableName);
    await first.close();

    const second = await startDynamo({ dataDir: ':memory:' });
    try {
      expect(await ensureTable(createDynamoClient({ dynamodbEndpoint: second.endpoint }), tableName)).toBe('created');
    } finally {
      await second.close();
    }
  });

  it('refuses a data dir another stand-in holds open', async () => {
    const first = await startDynamo({ dataDir, port: 0 });
    try {
      await expect(startDynamo({ dataDir, port: 0 })).rejects.toThrow(/is another emulator using it\?/);
    } finally {
      await first.close();
    }
  });

  it('fails to start on a port that is taken', async () => {
    const first = await startDynamo({ dataDir: ':memory:' });
    const port = Number(new URL(first.endpoint).port);
    try {
      await expect(startDynamo({ dataDir: ':memory:', port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
