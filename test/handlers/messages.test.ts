/**
 * `functions/messages` in process: what is decided before the fleet is asked — validation in Anthropic's
 * error shape, the route found whatever the query string says, and `count_tokens`, which never asks the
 * fleet. Routing itself is end to end (test/e2e/messages.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/messages';
import { getServices } from '../../lib/instance';
import { makeHttpEvent, makeHttpEventV2 } from '../helpers/events';
import { HOSTS, type Host } from '../helpers/hosts';

const message = { role: 'user', content: 'Hello' };

describe('functions/messages', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it("answers a body without max_tokens with 400 in Anthropic's error shape", async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/messages',
        body: { model: 'claude-sonnet-4-5', messages: [message] },
      });

      const reply = await host(routes(getServices()), event);

      expect(JSON.parse(reply.body)).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: max_tokens is required' },
      });
      expect(reply.statusCode).toBe(400);
    });

    it('answers a body without a model with 400 model is required', async () => {
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/messages',
        body: { max_tokens: 10, messages: [message] },
      });

      const reply = await host(routes(getServices()), event);

      expect(JSON.parse(reply.body)).toEqual({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'model is required' },
      });
    });

    it.each([
      ['payload 1.0', makeHttpEvent({ method: 'POST', path: '/v1/messages', query: { beta: 'true' }, body: {} })],
      ['payload 2.0', makeHttpEventV2({ method: 'POST', path: '/v1/messages', query: { beta: 'true' }, body: {} })],
    ])('finds the route of /v1/messages?beta=true (%s)', async (_payload, event) => {
      const reply = await host(routes(getServices()), event);

      expect(JSON.parse(reply.body)).toMatchObject({ type: 'error', error: { message: 'model is required' } });
    });
    describe('POST /v1/messages/count_tokens', () => {
      it('counts a text conversation token for token, without max_tokens', async () => {
        const reply = await countTokens(host, {
          model: 'claude-sonnet-4-5',
          system: 'tiktoken is great!',
          messages: [
            { role: 'user', content: 'hello world' },
            { role: 'assistant', content: 'Hello, world!' },
          ],
        });

        expect(JSON.parse(reply.body)).toEqual({ input_tokens: 6 + 2 + 4 });
        expect(reply.statusCode).toBe(200);
      });

      it('counts tools, a tool round trip and an image URL it does not fetch', async () => {
        const reply = await countTokens(host, TOOL_ROUND_TRIP);

        expect(JSON.parse(reply.body)).toEqual({ input_tokens: TOOL_ROUND_TRIP_TOKENS });
      });

      it('counts any model id, on the fleet or not', async () => {
        const reply = await countTokens(host, {
          model: 'claude-opus-4-1',
          messages: [{ role: 'user', content: 'hi' }],
        });

        expect(JSON.parse(reply.body)).toEqual({ input_tokens: 1 });
      });

      it.each([
        ['no model', { messages: [message] }, 'model is required'],
        ['no messages', { model: 'claude-sonnet-4-5' }, 'messages: '],
        [
          'a PDF document',
          {
            model: 'claude-sonnet-4-5',
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'AAAA' } },
                ],
              },
            ],
          },
          'messages.0.content.0.source: base64 documents (PDF) are not supported',
        ],
        [
          'an image from the Files API',
          {
            model: 'claude-sonnet-4-5',
            messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }],
          },
          'messages.0.content.0.source: file sources are not supported',
        ],
      ])("answers %s with 400 in Anthropic's error shape, as /v1/messages does", async (_case, body, text) => {
        const reply = await countTokens(host, body);
        const parsed = JSON.parse(reply.body) as { type: string; error: { type: string; message: string } };

        expect(parsed.type).toBe('error');
        expect(parsed.error.type).toBe('invalid_request_error');
        expect(parsed.error.message).toContain(text);
        expect(reply.statusCode).toBe(400);
      });
    });
  });
});

function countTokens(host: Host, body: object) {
  return host(routes(getServices()), makeHttpEvent({ method: 'POST', path: '/v1/messages/count_tokens', body }));
}

/** A tool round trip as Claude Code sends it, with an image URL that resolves nowhere. */
const TOOL_ROUND_TRIP = {
  model: 'claude-sonnet-4-5',
  system: [{ type: 'text', text: 'You are a coding agent.' }],
  tools: [
    {
      name: 'Read',
      description: 'Reads a file.',
      input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ],
  messages: [
    { role: 'user', content: 'What does src/a.ts export?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'src/a.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const answer = 42;' },
        { type: 'image', source: { type: 'url', url: 'https://images.invalid/diagram.png' } },
      ],
    },
  ],
};
/**
 * cl100k tokens: system 6, user 7, assistant text 4, the call's name 1 and arguments as JSON 7, the result
 * 7, the image IMAGE_TOKENS (1,600), the tool definition as the translator's JSON
 * (`{"type":"function","function":{"name":"Read",…}}`) 38.
 */
const TOOL_ROUND_TRIP_TOKENS = 6 + 7 + 4 + 1 + 7 + 7 + 1600 + 38;
