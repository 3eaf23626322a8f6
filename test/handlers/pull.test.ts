/**
 * `POST /api/pull` in `functions/ollama`, in process, on both hosts: what is refused before the fleet is
 * read — a missing or blank name, a body that is not JSON or has a field of the wrong type, and models
 * that are not runtime-native — each a 400 in Ollama's error shape. Pulls themselves are end to end
 * (test/e2e/pull.test.ts) and in process with a node (test/handlers/serve-pull.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/ollama';
import { getServices } from '../../lib/instance';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';

const pull = (body: unknown) => makeHttpEvent({ method: 'POST', path: '/api/pull', body: body as object });

describe('functions/ollama POST /api/pull', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it.each([
      ['no name', {}],
      ['a blank name', { name: '  ' }],
      ['a blank model', { model: '' }],
      ['null fields', { name: null, model: null }],
    ])('answers %s with 400 naming both fields', async (_case, body) => {
      const reply = await host(routes(getServices()), pull(body));

      expect(JSON.parse(reply.body)).toEqual({ error: "model name required (use 'name' or 'model' field)" });
      expect(reply.statusCode).toBe(400);
    });

    it('answers a name that is not a string with 400 naming the field', async () => {
      const reply = await host(routes(getServices()), pull({ name: 42 }));

      expect(JSON.parse(reply.body)).toEqual({ error: expect.stringMatching(/^name: /) });
      expect(reply.statusCode).toBe(400);
    });

    it('answers stream of the wrong type with 400 naming the field', async () => {
      const reply = await host(routes(getServices()), pull({ name: 'llama3', stream: 'yes' }));

      expect(JSON.parse(reply.body)).toEqual({ error: expect.stringMatching(/^stream: /) });
    });

    it('answers a body that is not JSON with 400', async () => {
      const reply = await host(
        routes(getServices()),
        makeHttpEvent({ method: 'POST', path: '/api/pull', body: '{"name":' }),
      );

      expect(JSON.parse(reply.body)).toEqual({ error: expect.stringMatching(/^request body is not valid JSON/) });
      expect(reply.statusCode).toBe(400);
    });

    it.each([
      ['flux-dev', 'name', 'uv tool install mflux'],
      ['sd3.5-large', 'model', 'uv tool install diffusionkit'],
      ['qwen3-asr', 'name', "pip install 'mlx-qwen3-asr[serve]'"],
      ['mlx-community/Llama-3.2-3B-Instruct-4bit', 'model', 'uv tool install mlx-lm'],
    ])('refuses %s (sent as %s) with 400 and how to install it', async (model, field, install) => {
      const reply = await host(routes(getServices()), pull({ [field]: model }));

      const { error } = JSON.parse(reply.body) as { error: string };
      expect(error).toContain(`'${model}'`);
      expect(error).toContain(install);
      expect(reply.statusCode).toBe(400);
    });
  });
});
