import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { summaryCacheKey } from '../../../../lib/core/context/summarised-tool-result';
import { toolResultSummaryKey } from '../../../../lib/services/store/keys';
import { createToolResultSummaryRepository } from '../../../../lib/services/store/tool-result-summary-repository';
import { createWriteBehind } from '../../../../lib/services/store/write-behind';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;

beforeAll(async () => {
  store = await startStore('tool-result-summary');
});

afterAll(async () => {
  await store.close();
});

describe('createToolResultSummaryRepository', () => {
  it('reads back the replacement it wrote behind, under the strategy and content hash', async () => {
    const queue = createWriteBehind(store.table);
    const repository = createToolResultSummaryRepository(store.table, queue);
    const key = summaryCacheKey('a long tool result');

    repository.save(key, '[summarised 2000→5 tokens]\nthe gist', Date.now() + 60_000);
    await queue.close();

    expect(await repository.load(key)).toBe('[summarised 2000→5 tokens]\nthe gist');
    expect(toolResultSummaryKey(key).pk).toMatch(/^SUMMARY#tool-result-v1#[0-9a-f]{64}$/);
  });

  it('finds nothing for content never summarised, nor for an expired summary', async () => {
    const queue = createWriteBehind(store.table);
    const repository = createToolResultSummaryRepository(store.table, queue);

    repository.save(summaryCacheKey('old'), 'stale', Date.now() - 5000);
    await queue.close();

    expect(await repository.load(summaryCacheKey('never'))).toBeUndefined();
    expect(await repository.load(summaryCacheKey('old'))).toBeUndefined();
  });
});
