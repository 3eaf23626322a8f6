/**
 * The context layers' cap (Layer 3) through the handlers, in process, on both hosts: a prompt over
 * `FLEET_MAX_PROMPT_TOKENS` is answered 413 in the family's error shape before any node is asked. The
 * services run on an in-process table and a config of the test's own.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes as messagesRoutes } from '../../functions/messages';
import { routes as openaiRoutes } from '../../functions/openai';
import { initServices, type Services } from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;

/** 200 tokens: `hello` and then ` hello`, one token each. */
const LONG = `hello${' hello'.repeat(199)}`;

beforeAll(async () => {
  store = await startStore('context-cap');
  services = initServices(
    loadConfig({
      FLEET_DYNAMODB_ENDPOINT: store.endpoint,
      FLEET_TABLE: store.tableName,
      FLEET_MODEL_MAP: 'claude-sonnet-4-5=qwen3:8b,gpt-5-codex=qwen3:8b',
      FLEET_MAX_PROMPT_TOKENS: '150',
    }),
  );
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

describe('the prompt cap', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it("answers /v1/messages over the cap with 413 request_too_large in Anthropic's shape", async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/messages',
        body: { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: LONG }] },
      });

      const reply = await host(messagesRoutes(services), event);

      expect(JSON.parse(reply.body)).toEqual({
        type: 'error',
        error: {
          type: 'request_too_large',
          message: expect.stringMatching(/^prompt is too long: 200 tokens > 150 maximum/),
        },
      });
      expect(reply.statusCode).toBe(413);
    });

    it("answers /v1/responses over the cap with 413 in OpenAI's shape", async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/responses',
        body: { model: 'gpt-5-codex', input: LONG },
      });

      const reply = await host(openaiRoutes(services), event);

      expect(JSON.parse(reply.body)).toEqual({
        error: {
          type: 'invalid_request_error',
          code: 'prompt_too_large',
          param: null,
          message: expect.stringMatching(/^prompt is too long: 200 tokens > 150 maximum/),
        },
      });
      expect(reply.statusCode).toBe(413);
    });

    it('lets a prompt under the cap go on to routing', async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/messages',
        body: { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
      });

      const reply = await host(messagesRoutes(services), event);

      // No node has the model: the dispatcher's answer, not the cap's.
      expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    });
  });
});
