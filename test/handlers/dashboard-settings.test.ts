/**
 * `GET` and `POST /dashboard/api/settings` in process on both hosts: the environment's values, an
 * operator's change kept in the table (so every instance sees it), cleared with `null` (the environment
 * applies again, on every instance), and bad updates refused with 400.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import { initServices, type Services } from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';
import { createSettingsRepository } from '../../lib/services/store/settings-repository';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;

beforeAll(async () => {
  store = await startStore('dashboard-settings');
  services = initServices(
    loadConfig({
      FLEET_DYNAMODB_ENDPOINT: store.endpoint,
      FLEET_TABLE: store.tableName,
      FLEET_TRANSCRIPTION: 'true',
      FLEET_API_KEYS: 'secret-one,secret-two',
    }),
  );
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const get = () =>
  makeHttpEvent({ method: 'GET', path: '/dashboard/api/settings', headers: { authorization: 'Bearer secret-one' } });
const post = (body: object) =>
  makeHttpEvent({
    method: 'POST',
    path: '/dashboard/api/settings',
    headers: { authorization: 'Bearer secret-one' },
    body,
  });

describe('/dashboard/api/settings', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('shows the runtime settings and the configuration, never the API keys themselves', async () => {
      await createSettingsRepository(store.table).save({});
      const fresh = initServices(services.config);

      const reply = await host(routes(fresh), get());

      const body = JSON.parse(reply.body);
      expect(body).toMatchObject({
        image_generation: false,
        transcription: true,
        runtime: ['image_generation', 'transcription'],
        config: { max_retries: 2, api_keys: 2 },
      });
      expect(reply.body).not.toContain('secret-one');
      await fresh.writeBehind.close();
    });

    it('switches image generation on and keeps it in the table', async () => {
      await createSettingsRepository(store.table).save({});
      const fresh = initServices(services.config);

      const reply = await host(routes(fresh), post({ image_generation: true }));

      expect(JSON.parse(reply.body)).toMatchObject({ image_generation: true, transcription: true });
      await expect(createSettingsRepository(store.table).load()).resolves.toEqual({ imageGeneration: true });
      await expect(fresh.settings.current()).resolves.toEqual({ imageGeneration: true, transcription: true });
      await fresh.writeBehind.close();
    });

    it('keeps an operator change across a restart: a new instance on the same table shows it as overridden', async () => {
      await createSettingsRepository(store.table).save({});
      const before = initServices(services.config);
      await host(routes(before), post({ image_generation: true }));
      await before.writeBehind.close();
      const restarted = initServices(services.config);

      const reply = await host(routes(restarted), get());

      expect(JSON.parse(reply.body)).toMatchObject({
        image_generation: true,
        transcription: true,
        overridden: ['image_generation'],
        defaults: { image_generation: false, transcription: true },
      });
      await restarted.writeBehind.close();
    });

    it('clears an override sent as null: gone from the table, the environment value in force and shown', async () => {
      await createSettingsRepository(store.table).save({ imageGeneration: true, transcription: false });
      const fresh = initServices(services.config);

      const reply = await host(routes(fresh), post({ image_generation: null }));

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toMatchObject({
        image_generation: false,
        transcription: false,
        overridden: ['transcription'],
        defaults: { image_generation: false, transcription: true },
      });
      await expect(createSettingsRepository(store.table).load()).resolves.toEqual({ transcription: false });
      // Another instance on the same table reads the environment's value from its first read.
      const other = initServices(services.config);
      const seen = JSON.parse((await host(routes(other), get())).body);
      expect(seen).toMatchObject({ image_generation: false, overridden: ['transcription'] });
      await Promise.all([fresh.writeBehind.close(), other.writeBehind.close()]);
    });

    it('answers an unknown setting with 400 naming it', async () => {
      const reply = await host(routes(services), post({ image_generaton: true }));

      expect(JSON.parse(reply.body)).toEqual({
        error: expect.objectContaining({ message: expect.stringContaining('image_generaton') }),
      });
      expect(reply.statusCode).toBe(400);
    });

    it('answers a setting of the wrong type with 400 naming the field', async () => {
      const reply = await host(routes(services), post({ transcription: 'yes' }));

      expect(JSON.parse(reply.body)).toEqual({
        error: expect.objectContaining({ message: expect.stringMatching(/^transcription: /), param: 'transcription' }),
      });
      expect(reply.statusCode).toBe(400);
    });
  });
});
