/**
 * `POST /v1/responses` in process: what is decided before the fleet is asked — validation and the
 * stateless refusal of `previous_response_id`, in OpenAI's error shape. Routing itself is end to end
 * (test/e2e/responses.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/openai';
import { getServices } from '../../lib/instance';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';

describe('functions/openai POST /v1/responses', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('refuses previous_response_id with a 400 naming it: nothing is stored', async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/responses',
        body: { model: 'gpt-5-codex', input: 'and then?', previous_response_id: 'resp_123' },
      });

      const reply = await host(routes(getServices()), event);
      const body = JSON.parse(reply.body) as { error: { message: string; type: string; param: string } };

      expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'previous_response_id' });
      expect(body.error.message).toContain('not supported');
      expect(body.error.message).toContain('store: false');
      expect(reply.statusCode).toBe(400);
    });

    it('answers a body without a model with 400 model is required', async () => {
      const event = makeHttpEvent({ method: 'POST', path: '/v1/responses', body: { input: 'hi' } });

      const reply = await host(routes(getServices()), event);

      expect(JSON.parse(reply.body)).toMatchObject({ error: { message: 'model is required', param: 'model' } });
    });
  });
});
