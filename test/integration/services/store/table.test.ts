import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DocItem } from '../../../../lib/services/store/item';
import { lockKey, prefixedKey } from '../../../../lib/services/store/keys';
import { BatchWriteIncompleteError } from '../../../../lib/services/store/store-errors';
import { openTable } from '../../../../lib/services/store/table';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

const nowSeconds = () => Math.floor(Date.now() / 1000);

function docs(pk: string, count: number, extra: (index: number) => Partial<DocItem> = () => ({})): DocItem[] {
  return Array.from({ length: count }, (_, index) => ({
    pk,
    sk: `ITEM#${String(index).padStart(3, '0')}`,
    doc: JSON.stringify({ index }),
    ...extra(index),
  }));
}

describe('table', () => {
  let store: StoreFixture;

  beforeAll(async () => {
    store = await startStore('table');
  });

  afterAll(async () => {
    await store.close();
  });

  describe('putDoc / getDoc', () => {
    it('round-trips a document with its index keys and expiry', async () => {
      const item: DocItem = {
        pk: 'DOC#a',
        sk: 'one',
        gsi1pk: 'BY#x',
        gsi1sk: '0001',
        expiresAt: nowSeconds() + 3600,
        doc: '{"hello":"wörld"}',
      };

      await store.table.putDoc(item);

      expect(await store.table.getDoc('DOC#a', 'one')).toEqual({ ...item, attributes: {} });
    });

    it('returns undefined for a missing key', async () => {
      expect(await store.table.getDoc('DOC#a', 'missing')).toBeUndefined();
    });

    it('hides an item whose expiresAt has passed (the stand-in never reaps it)', async () => {
      await store.table.putDoc({ pk: 'DOC#a', sk: 'expired', expiresAt: nowSeconds() - 5, doc: '{}' });

      expect(await store.table.getDoc('DOC#a', 'expired')).toBeUndefined();
    });

    it('refuses an expiresAt in milliseconds', async () => {
      await expect(store.table.putDoc({ pk: 'DOC#a', sk: 'ms', expiresAt: Date.now(), doc: '{}' })).rejects.toThrow(
        /epoch seconds/,
      );
    });
  });

  describe('queryDocs', () => {
    beforeAll(async () => {
      await store.table.batchPut([
        ...docs('Q#prefix', 5, (index) => ({ sk: `A#${index}` })),
        ...docs('Q#prefix', 3, (index) => ({ sk: `B#${index}` })),
      ]);
    });

    it('returns the partition in sort-key order', async () => {
      const items = await store.table.queryDocs('Q#prefix');

      expect(items.map((item) => item.sk)).toEqual(['A#0', 'A#1', 'A#2', 'A#3', 'A#4', 'B#0', 'B#1', 'B#2']);
    });

    it('filters by sort-key prefix', async () => {
      const items = await store.table.queryDocs('Q#prefix', { skPrefix: 'B#' });

      expect(items.map((item) => item.sk)).toEqual(['B#0', 'B#1', 'B#2']);
    });

    it('stops at the limit and reads backwards when asked', async () => {
      const items = await store.table.queryDocs('Q#prefix', { limit: 2, scanForward: false });

      expect(items.map((item) => item.sk)).toEqual(['B#2', 'B#1']);
    });

    it('returns nothing for a zero limit', async () => {
      expect(await store.table.queryDocs('Q#prefix', { limit: 0 })).toEqual([]);
    });

    it('follows pages past expired items until the limit is reached', async () => {
      // Every other item expired: each Limit-sized page holds half as many live items as asked for.
      await store.table.batchPut(
        docs('Q#expiry', 40, (index) => ({ expiresAt: index % 2 === 0 ? nowSeconds() - 60 : nowSeconds() + 600 })),
      );

      const limited = await store.table.queryDocs('Q#expiry', { limit: 15 });
      const all = await store.table.queryDocs('Q#expiry');

      expect(limited).toHaveLength(15);
      expect(limited.every((item) => (item.expiresAt ?? 0) > nowSeconds())).toBe(true);
      expect(all).toHaveLength(20);
    });

    it('follows LastEvaluatedKey past the 1 MB page size', async () => {
      // Random bytes: large documents are stored deflated, and these must stay about 100 KB each when they are.
      await store.table.batchPut(
        docs('Q#big', 14, () => ({ doc: JSON.stringify({ big: randomBytes(90 * 1024).toString('base64') }) })),
      );

      const firstPage = await store.client.send(
        new QueryCommand({
          TableName: store.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: 'Q#big' } },
        }),
      );

      const items = await store.table.queryDocs('Q#big');

      expect(firstPage.LastEvaluatedKey).toBeDefined();
      expect(firstPage.Items?.length).toBeLessThan(14);
      expect(items).toHaveLength(14);
      expect(new Set(items.map((item) => item.sk)).size).toBe(14);
    });

    it('queries gsi1 by its own keys', async () => {
      await store.table.batchPut([
        { pk: 'G#1', sk: 'a', gsi1pk: 'MODEL#llama', gsi1sk: '2026-01-02', doc: '{"n":2}' },
        { pk: 'G#2', sk: 'a', gsi1pk: 'MODEL#llama', gsi1sk: '2026-01-01', doc: '{"n":1}' },
        { pk: 'G#3', sk: 'a', gsi1pk: 'MODEL#llama', gsi1sk: '2025-12-31', doc: '{"n":0}' },
        { pk: 'G#4', sk: 'a', gsi1pk: 'MODEL#qwen', gsi1sk: '2026-01-01', doc: '{"n":9}' },
      ]);

      const items = await store.table.queryDocs('MODEL#llama', { index: 'gsi1', skPrefix: '2026-' });

      expect(items.map((item) => item.doc)).toEqual(['{"n":1}', '{"n":2}']);
    });

    it('goes on below a sort key, newest first, where a read in steps left off', async () => {
      await store.table.batchPut(
        ['05', '04', '03', '02', '01'].map((sk) => ({ pk: 'G#s', sk, gsi1pk: 'STEPS', gsi1sk: sk, doc: `"${sk}"` })),
      );
      const page = (skBefore?: string) =>
        store.table.queryDocs('STEPS', {
          index: 'gsi1',
          scanForward: false,
          limit: 2,
          ...(skBefore === undefined ? {} : { skBefore }),
        });

      const first = await page();
      const second = await page(first.at(-1)?.gsi1sk);

      expect([...first, ...second].map((item) => item.gsi1sk)).toEqual(['05', '04', '03', '02']);
      expect(() => store.table.queryDocs('STEPS', { index: 'gsi1', skPrefix: '0', skBefore: '03' })).toThrow(
        'skPrefix and skBefore',
      );
    });
  });

  describe('deleteItem', () => {
    it('reports whether something was deleted', async () => {
      await store.table.putDoc({ pk: 'DEL', sk: 'a', doc: '{}' });

      expect(await store.table.deleteItem('DEL', 'a')).toBe(true);
      expect(await store.table.deleteItem('DEL', 'a')).toBe(false);
      expect(await store.table.getDoc('DEL', 'a')).toBeUndefined();
    });

    it('deletes only a matching doc when ifDoc is given', async () => {
      await store.table.putDoc({ pk: 'DEL', sk: 'b', doc: '{"owner":"me"}' });

      expect(await store.table.deleteItem('DEL', 'b', { ifDoc: '{"owner":"you"}' })).toBe(false);
      expect(await store.table.getDoc('DEL', 'b')).toBeDefined();
      expect(await store.table.deleteItem('DEL', 'b', { ifDoc: '{"owner":"me"}' })).toBe(true);
    });
  });

  describe('putIfAbsent (locks)', () => {
    it('lets exactly one of several racing callers take a lock', async () => {
      const { pk, sk } = lockKey('pull-llama');
      const attempts = Array.from({ length: 8 }, (_, index) =>
        store.table.putIfAbsent({ pk, sk, expiresAt: nowSeconds() + 60, doc: JSON.stringify({ owner: index }) }),
      );

      const results = await Promise.all(attempts);

      expect(results.filter((taken) => taken)).toHaveLength(1);
    });

    it('refuses a live lock even when takeover is allowed', async () => {
      const { pk, sk } = lockKey('live');
      await store.table.putIfAbsent({ pk, sk, expiresAt: nowSeconds() + 60, doc: '{"owner":"a"}' });

      const taken = await store.table.putIfAbsent(
        { pk, sk, expiresAt: nowSeconds() + 60, doc: '{"owner":"b"}' },
        { orExpiredBefore: nowSeconds() },
      );

      expect(taken).toBe(false);
      expect((await store.table.getDoc(pk, sk))?.doc).toBe('{"owner":"a"}');
    });

    it('takes over an expired lock only when takeover is allowed', async () => {
      const { pk, sk } = lockKey('stale');
      await store.table.putIfAbsent({ pk, sk, expiresAt: nowSeconds() - 10, doc: '{"owner":"crashed"}' });
      const fresh = { pk, sk, expiresAt: nowSeconds() + 60, doc: '{"owner":"b"}' };

      const without = await store.table.putIfAbsent(fresh);
      const withTakeover = await store.table.putIfAbsent(fresh, { orExpiredBefore: nowSeconds() });

      expect(without).toBe(false);
      expect(withTakeover).toBe(true);
      expect((await store.table.getDoc(pk, sk))?.doc).toBe('{"owner":"b"}');
    });
  });

  describe('addCounters', () => {
    it('creates the item on first use, adds on later ones, and sets the extra fields', async () => {
      const pk = prefixedKey('USAGE', 'llama3.2:3b');
      const set = { gsi1pk: 'USAGE', gsi1sk: '2026-01-01T10', model: 'llama3.2:3b' };

      await store.table.addCounters(pk, 'H#10', { requests: 1, tokens: 128 }, set);
      await store.table.addCounters(pk, 'H#10', { requests: 1, tokens: 200, errors: 0 });
      await store.table.addCounters(pk, 'H#10', { requests: 1, tokens: 56 });

      const item = await store.table.getDoc(pk, 'H#10');
      expect(item?.attributes).toEqual({ requests: 3, tokens: 384, errors: 0, model: 'llama3.2:3b' });
      expect(item?.doc).toBeUndefined();
      expect((await store.table.queryDocs('USAGE', { index: 'gsi1' })).map((found) => found.pk)).toEqual([pk]);
    });

    it('sends nothing when there is nothing to add or set', async () => {
      await store.table.addCounters('C#none', 'x', {});

      expect(await store.table.getDoc('C#none', 'x')).toBeUndefined();
    });

    it('refuses to touch key attributes', async () => {
      await expect(store.table.addCounters('C#bad', 'x', { pk: 1 })).rejects.toThrow(/cannot be a counter/);
      await expect(store.table.addCounters('C#bad', 'x', {}, { sk: 'y' })).rejects.toThrow(/key attribute/);
    });
  });

  describe('addCounters with maxima', () => {
    it('raises each maximum only upwards, adds the counters once, and counts the requests it took', async () => {
      // Two writers (two router instances): each remembers only what it raised itself.
      const first = store.table;
      const second = openTable(store.client, store.tableName);
      const [pk, sk] = ['MAX#two', 'x'];

      expect(await first.addCounters(pk, sk, { requests: 2 }, {}, { top: 10, last_at: 100 })).toBe(1);
      // Lower than what is stored: the combined update fails its condition and applies nothing; each
      // maximum is then tried alone (and stays), and the counters go out once, unconditionally.
      expect(
        await second.addCounters(pk, sk, { requests: 3 }, { expiresAt: 4_000_000_000 }, { top: 5, last_at: 90 }),
      ).toBe(4);
      expect(await second.addCounters(pk, sk, { requests: 1 }, {}, { top: 20, last_at: 95 })).toBe(4);
      // The first writer raised `top` to 10 itself: 8 is left out, and `last_at` rises in the one update.
      expect(await first.addCounters(pk, sk, { requests: 1 }, {}, { top: 8, last_at: 120 })).toBe(1);

      expect((await first.getDoc(pk, sk))?.attributes).toEqual({ requests: 7, top: 20, last_at: 120 });
    });

    it('raises a maximum of an absent item, and creates the item with it', async () => {
      expect(await store.table.addCounters('MAX#new', 'x', {}, {}, { top: 3 })).toBe(1);

      expect((await store.table.getDoc('MAX#new', 'x'))?.attributes).toEqual({ top: 3 });
    });
  });

  describe('batchPut', () => {
    it('writes 60 items in 3 requests', async () => {
      const items = docs('BATCH#60', 60);

      const outcome = await store.table.batchPut(items);

      expect(outcome).toEqual({ requests: 3, retries: 0, written: 60 });
      expect(await store.table.queryDocs('BATCH#60')).toHaveLength(60);
    });

    it('collapses duplicate keys, the later put winning', async () => {
      const outcome = await store.table.batchPut([
        { pk: 'BATCH#dup', sk: 'a', doc: '"first"' },
        { pk: 'BATCH#dup', sk: 'b', doc: '"b"' },
        { pk: 'BATCH#dup', sk: 'a', doc: '"second"' },
      ]);

      expect(outcome.written).toBe(2);
      expect((await store.table.getDoc('BATCH#dup', 'a'))?.doc).toBe('"second"');
    });

    it('reports the items of a rejected batch as unwritten and not retryable', async () => {
      const items = [...docs('BATCH#bad', 2), { pk: 'BATCH#bad', sk: '', doc: '{}' }];

      const failure = await store.table.batchPut(items).catch((error: unknown) => error);

      if (!(failure instanceof BatchWriteIncompleteError)) throw new Error(`unexpected ${String(failure)}`);
      expect(failure.unwritten).toHaveLength(3);
      expect(failure.retryable).toBe(false);
      expect(failure.cause).toMatchObject({ name: 'ValidationException' });
      expect(failure.outcome).toEqual({ requests: 1, retries: 0, written: 0 });
    });
  });
});
