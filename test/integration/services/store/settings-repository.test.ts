import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { settingsKey } from '../../../../lib/services/store/keys';
import { createSettingsRepository } from '../../../../lib/services/store/settings-repository';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;

beforeAll(async () => {
  store = await startStore('settings');
});

afterAll(async () => {
  await store.close();
});

describe('createSettingsRepository', () => {
  it('loads nothing before anything was saved', async () => {
    const repository = createSettingsRepository(store.table);

    await expect(repository.load()).resolves.toEqual({});
  });

  it('loads what it saved', async () => {
    const repository = createSettingsRepository(store.table);

    await repository.save({ imageGeneration: true, transcription: false });

    await expect(repository.load()).resolves.toEqual({ imageGeneration: true, transcription: false });
  });

  it('ignores fields of the wrong type, so a bad write cannot switch a feature on', async () => {
    const { pk, sk } = settingsKey();
    await store.table.putDoc({ pk, sk, doc: JSON.stringify({ imageGeneration: 'yes', transcription: true }) });

    await expect(createSettingsRepository(store.table).load()).resolves.toEqual({ transcription: true });
  });

  it('reads a corrupt item as no overrides', async () => {
    const { pk, sk } = settingsKey();
    await store.table.putDoc({ pk, sk, doc: '{not json' });

    await expect(createSettingsRepository(store.table).load()).resolves.toEqual({});
  });
});
