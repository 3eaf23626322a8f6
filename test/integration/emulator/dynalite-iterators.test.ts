/**
 * The stand-in closes what it reads with (emulator/dynalite-iterators): every LevelDB iterator dynalite
 * opens for a Query — one that reads to the end of its range, one a Limit cuts short, one over nothing —
 * is closed once the answer is out, on disk and in memory. Left open, each pinned a snapshot of the
 * store and the table's memory grew with every read.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type DynamoStandIn, startDynamo } from '../../../emulator/dynamo';
import { createDynamoClient } from '../../../lib/services/store/client';
import { ensureTable } from '../../../lib/services/store/ensure-table';
import { openTable } from '../../../lib/services/store/table';
import { uniqueTableName } from '../../helpers/store-fixture';

/** Counts the iterators the stores open and close, on the prototype both of dynalite's stores share. */
function countIterators(): { open: () => number; made: () => number } {
  const fromDynalite = createRequire(require.resolve('dynalite'));
  const { Level } = fromDynalite('level') as { Level: { prototype: object } };
  const shared = Object.getPrototypeOf(Level.prototype) as Record<string, unknown>;
  const opened = new Set<object>();
  let made = 0;
  for (const name of ['values', 'keys', 'iterator']) {
    const original = shared[name] as (...args: unknown[]) => { close(): Promise<void> };
    shared[name] = function (this: unknown, ...args: unknown[]) {
      const iterator = original.apply(this, args);
      made += 1;
      opened.add(iterator);
      const close = iterator.close.bind(iterator);
      iterator.close = async () => {
        opened.delete(iterator);
        await close();
      };
      return iterator;
    };
  }
  return { open: () => opened.size, made: () => made };
}

let dataDir: string;
const stores: DynamoStandIn[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'fleet-iterators-'));
  // Started once before counting, so the count wraps what the stand-in itself set up.
  stores.push(await startDynamo({ dataDir: ':memory:' }));
});

afterAll(async () => {
  for (const store of stores) await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe.each([
  ['on disk', () => dataDir],
  ['in memory', () => ':memory:'],
])('the stand-in %s', (_where, folder) => {
  it('closes every iterator it reads a Query with, whether the range ends, a Limit stops it, or it is empty', async () => {
    const store = await startDynamo({ dataDir: folder() });
    stores.push(store);
    const client = createDynamoClient({ dynamodbEndpoint: store.endpoint });
    const tableName = uniqueTableName('iterators');
    await ensureTable(client, tableName);
    const table = openTable(client, tableName);
    for (let index = 0; index < 30; index += 1) {
      await table.putDoc({ pk: 'TRACE', sk: String(index).padStart(4, '0'), doc: '{}' });
    }
    const iterators = countIterators();

    for (let round = 0; round < 20; round += 1) {
      await table.queryDocs('TRACE');
      await table.queryDocs('TRACE', { limit: 5, scanForward: false });
      await table.queryDocs('NOTHING');
    }
    // The last close may land a turn after the answer went out.
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(iterators.made()).toBeGreaterThanOrEqual(60);
    expect(iterators.open()).toBe(0);
    client.destroy();
  });
});
