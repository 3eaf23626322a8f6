/**
 * `functions/messages` in process: what is decided before the fleet is asked — validation in Anthropic's
 * error shape, and the route found whatever the query string says. Routing itself is end to end
 * (test/e2e/messages.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { routes } from '../../../functions/messages';
import { makeHttpEvent, makeHttpEventV2 } from '../../helpers/events';
import { HOSTS } from './hosts';

const message = { role: 'user', content: 'Hello' };

describe('functions/messages', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it("answers a body without max_tokens with 400 in Anthropic's error shape", async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/messages',
        body: { model: 'claude-sonnet-4-5', messages: [message] },
      });

      const reply = await host(routes, event);

      expect(JSON.parse(reply.body)).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: max_tokens is required' },
      });
      if (reply.statusCode !== undefined) expect(reply.statusCode).toBe(400);
    });

    it('answers a body without a model with 400 model is required', async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/messages',
        body: { max_tokens: 10, messages: [message] },
      });

      const reply = await host(routes, event);

      expect(JSON.parse(reply.body)).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'model is required' },
      });
    });

    it.each([
      ['payload 1.0', makeHttpEvent({ method: 'POST', path: '/v1/messages', query: { beta: 'true' }, body: {} })],
      ['payload 2.0', makeHttpEventV2({ method: 'POST', path: '/v1/messages', query: { beta: 'true' }, body: {} })],
    ])('finds the route of /v1/messages?beta=true (%s)', async (_payload, event) => {
      const reply = await host(routes, event);

      expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { message: 'model is required' } });
    });
  });
});
