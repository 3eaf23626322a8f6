/**
 * The embedding routes in process, on both hosts: what is decided before the fleet is asked — every
 * refusal of a bad body with 400 in the family's error shape (OpenAI's envelope on `/v1/embeddings`,
 * `{"error": "..."}` on `/api/embed` and `/api/embeddings`), naming the field. Routing, the vectors and
 * the 404/502/503 answers are end to end (test/e2e/embeddings.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { routes as ollamaRoutes } from '../../functions/ollama';
import { routes as openaiRoutes } from '../../functions/openai';
import { getServices } from '../../lib/instance';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS, type Host } from '../helpers/hosts';

interface OpenAIErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null };
}

const openai = (host: Host, body: object | string) =>
  host(openaiRoutes(getServices()), makeHttpEvent({ method: 'POST', path: '/v1/embeddings', body }));
const ollama = (host: Host, path: '/api/embed' | '/api/embeddings', body: object | string) =>
  host(ollamaRoutes(getServices()), makeHttpEvent({ method: 'POST', path, body }));

const MODEL = 'nomic-embed-text';
/** 2,049 cl100k tokens (`hello`, then ` hello` each one token): one over the limit. */
const OVER_LIMIT = `hello${' hello'.repeat(2048)}`;
const EXCEEDS = 'the input length exceeds the context length';

describe('functions/openai POST /v1/embeddings', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it.each([
      ['no model', { input: 'hi' }, 'model', 'model is required'],
      ['an empty model', { model: '', input: 'hi' }, 'model', 'model is required'],
      ['no input', { model: MODEL }, 'input', 'input is required'],
      ['an empty string', { model: MODEL, input: '' }, 'input', 'input is an empty string'],
      ['an empty string in the array', { model: MODEL, input: ['a', 'b', ''] }, 'input.2', 'input.2 is an empty'],
      ['an empty array', { model: MODEL, input: [] }, 'input', 'input must not be an empty array'],
      ['token ids', { model: MODEL, input: [15339, 1917] }, 'input', 'token-id inputs are not supported'],
      ['a number item', { model: MODEL, input: ['a', 2.5] }, 'input.1', 'input.1 must be a string'],
      [
        'an unknown encoding_format',
        { model: MODEL, input: 'hi', encoding_format: 'binary' },
        'encoding_format',
        'encoding_format must be "float" or "base64", not "binary"',
      ],
      ['dimensions 0', { model: MODEL, input: 'hi', dimensions: 0 }, 'dimensions', 'must be a positive integer'],
      ['dimensions 1.5', { model: MODEL, input: 'hi', dimensions: 1.5 }, 'dimensions', 'must be a positive integer'],
      ['dimensions as text', { model: MODEL, input: 'hi', dimensions: '256' }, 'dimensions', 'positive integer'],
      [
        'an input over 2,048 tokens with truncate: false',
        { model: MODEL, input: ['short', OVER_LIMIT], truncate: false },
        'input.1',
        `${EXCEEDS}: input.1 is over 2048 tokens`,
      ],
      ['fallback_models not a list', { model: MODEL, input: 'hi', fallback_models: 'x' }, 'fallback_models', ''],
    ])("answers %s with 400 in OpenAI's shape naming the field", async (_case, body, param, message) => {
      const reply = await openai(host, body);
      const parsed = JSON.parse(reply.body) as OpenAIErrorBody;

      expect(parsed.error.type).toBe('invalid_request_error');
      expect(parsed.error.param).toBe(param);
      expect(parsed.error.message).toContain(message);
      expect(reply.statusCode).toBe(400);
    });

    it('answers a body that is not JSON with 400', async () => {
      const reply = await openai(host, '{"model":');

      expect((JSON.parse(reply.body) as OpenAIErrorBody).error.message).toContain('request body is not valid JSON');
      expect(reply.statusCode).toBe(400);
    });
  });
});

describe('functions/ollama POST /api/embed and /api/embeddings', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it.each([
      ['/api/embed', 'no model', { input: 'hi' }, 'model is required'],
      ['/api/embeddings', 'no model', { prompt: 'hi' }, 'model is required'],
      [
        '/api/embed',
        'a long item, truncate: false',
        { model: MODEL, input: ['a', OVER_LIMIT], truncate: false },
        'input.1',
      ],
      [
        '/api/embed',
        'a long input, truncate: false',
        { model: MODEL, input: OVER_LIMIT, truncate: false },
        `${EXCEEDS}: input is`,
      ],
      [
        '/api/embed',
        'a long prompt, truncate: false',
        { model: MODEL, prompt: OVER_LIMIT, truncate: false },
        ': prompt is',
      ],
      [
        '/api/embeddings',
        'a long prompt, truncate: false',
        { model: MODEL, prompt: OVER_LIMIT, truncate: false },
        EXCEEDS,
      ],
      ['/api/embed', 'no input', { model: MODEL }, 'input is required'],
      ['/api/embed', 'an empty string', { model: MODEL, input: '' }, 'input is an empty string'],
      ['/api/embed', 'an empty string in the array', { model: MODEL, input: ['a', ''] }, 'input.1 is an empty'],
      ['/api/embed', 'an empty prompt', { model: MODEL, prompt: '' }, 'prompt is an empty string'],
      ['/api/embed', 'a number', { model: MODEL, input: 7 }, 'input must be a string or an array of strings'],
      ['/api/embed', 'dimensions -3', { model: MODEL, input: 'a', dimensions: -3 }, 'dimensions: must be a positive'],
      ['/api/embeddings', 'no prompt', { model: MODEL }, 'prompt is required'],
      ['/api/embeddings', 'an empty prompt', { model: MODEL, prompt: '' }, 'prompt is an empty string'],
      ['/api/embeddings', 'an array prompt', { model: MODEL, prompt: ['a'] }, 'prompt must be a string'],
      ['/api/embeddings', 'an array input', { model: MODEL, input: ['a', 'b'] }, 'input must be a string'],
      ['/api/embed', 'options not an object', { model: MODEL, input: 'a', options: 3 }, 'options: '],
    ] as const)('%s answers %s with 400 {"error": ...}', async (path, _case, body, message) => {
      const reply = await ollama(host, path, body);
      const parsed = JSON.parse(reply.body) as { error: string };

      expect(Object.keys(parsed)).toEqual(['error']);
      expect(parsed.error).toContain(message);
      expect(reply.statusCode).toBe(400);
    });
  });
});
