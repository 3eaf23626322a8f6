import { describe, expect, it } from '@jest/globals';
import { PayloadTooLargeError } from '../../../../lib/core/errors';
import { MAX_BODY_BYTES, toHttpRequest } from '../../../../lib/services/http/request';
import { makeHttpEvent, makeHttpEventV2 } from '../../../helpers/events';

describe('toHttpRequest', () => {
  describe.each([
    ['payload 1.0', makeHttpEvent],
    ['payload 2.0', makeHttpEventV2],
  ])('%s', (_name, make) => {
    it('reads method, path, query and a JSON body', () => {
      const request = toHttpRequest(
        make({ method: 'post', path: '/api/chat', query: { days: '7' }, body: { model: 'llama3.2:3b' } }),
      );

      expect(request.method).toBe('POST');
      expect(request.path).toBe('/api/chat');
      expect(request.query).toEqual({ days: '7' });
      expect(JSON.parse(request.body.toString('utf8'))).toEqual({ model: 'llama3.2:3b' });
      expect(request.bodyText()).toBe('{"model":"llama3.2:3b"}');
    });

    it('gives the same body as text and as bytes, beyond ASCII too', () => {
      const request = toHttpRequest(make({ method: 'POST', path: '/api/chat', body: { content: 'héllo ✓ 🦙' } }));

      expect(request.bodyText()).toBe('{"content":"héllo ✓ 🦙"}');
      expect(request.body.equals(Buffer.from('{"content":"héllo ✓ 🦙"}', 'utf8'))).toBe(true);
    });

    it('looks headers up case-insensitively', () => {
      const request = toHttpRequest(make({ path: '/', headers: { 'X-Service-Tags': 'a,b' } }));

      expect(request.header('x-service-tags')).toBe('a,b');
      expect(request.header('X-SERVICE-TAGS')).toBe('a,b');
      expect(request.headers['x-service-tags']).toBe('a,b');
    });

    it('decodes base64 bodies to the original bytes', () => {
      const bytes = Buffer.from([0, 1, 2, 250, 251, 255]);

      const request = toHttpRequest(make({ method: 'POST', path: '/api/transcribe', body: bytes }));

      expect(request.body.equals(bytes)).toBe(true);
      expect(request.bodyText()).toBe(bytes.toString('utf8'));
    });

    it('refuses bodies over the Lambda limit', () => {
      const event = make({ method: 'POST', path: '/api/chat', body: 'x'.repeat(MAX_BODY_BYTES + 1) });

      expect(() => toHttpRequest(event)).toThrow(PayloadTooLargeError);
    });

    it('counts the limit in UTF-8 bytes, not characters', () => {
      const half = MAX_BODY_BYTES / 2;
      const atLimit = make({ method: 'POST', path: '/api/chat', body: 'é'.repeat(half) });
      const overLimit = make({ method: 'POST', path: '/api/chat', body: 'é'.repeat(half + 1) });

      expect(toHttpRequest(atLimit).body.length).toBe(MAX_BODY_BYTES);
      expect(() => toHttpRequest(overLimit)).toThrow(PayloadTooLargeError);
    });

    it('accepts a body of exactly the limit', () => {
      const event = make({ method: 'POST', path: '/api/chat', body: 'x'.repeat(MAX_BODY_BYTES) });

      expect(toHttpRequest(event).body.length).toBe(MAX_BODY_BYTES);
    });

    it('gives an empty body when there is none', () => {
      expect(toHttpRequest(make({ path: '/api/tags' })).body.length).toBe(0);
    });
  });

  it('strips a query string left on the path', () => {
    const event = makeHttpEventV2({ path: '/v1/messages' });
    event.rawPath = '/v1/messages?beta=true';

    expect(toHttpRequest(event).path).toBe('/v1/messages');
  });

  it('joins repeated payload 1.0 headers and keeps the source address', () => {
    const event = makeHttpEvent({ path: '/', sourceIp: '10.1.2.3' });
    event.multiValueHeaders = { Accept: ['text/plain', 'application/json'] };
    event.headers = { Accept: 'application/json' };

    const request = toHttpRequest(event);

    expect(request.header('accept')).toBe('text/plain, application/json');
    expect(request.sourceIp).toBe('10.1.2.3');
    expect(request.resource).toBe('/');
  });
});
