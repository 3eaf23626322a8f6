import { describe, expect, it } from '@jest/globals';
import { createCorsPolicy, preflightHeaders, withCorsHeaders } from '../../../../lib/services/http/cors';
import { loadConfig } from '../../../../lib/services/platform/config';
import { makeHttpEvent } from '../../../helpers/events';

function policyFor(origins: string[]) {
  const policy = createCorsPolicy(origins);
  if (policy === undefined) throw new Error('expected a policy');
  return policy;
}

describe('createCorsPolicy', () => {
  it('is no policy at all when unset or empty', () => {
    expect(createCorsPolicy(undefined)).toBeUndefined();
    expect(createCorsPolicy([])).toBeUndefined();
  });

  it('echoes an exactly listed origin, case-insensitively, and nothing else', () => {
    const policy = policyFor(['https://App.example']);
    expect(policy.allowOrigin('https://app.example')).toBe('https://app.example');
    expect(policy.allowOrigin('https://app.example:443')).toBeUndefined();
    expect(policy.allowOrigin('http://app.example')).toBeUndefined();
    expect(policy.allowOrigin('https://app.example.evil.test')).toBeUndefined();
    expect(policy.allowOrigin(undefined)).toBeUndefined();
    expect(policy.variesByOrigin).toBe(true);
  });

  it('lets * inside an entry stand for a port', () => {
    const policy = policyFor(['http://localhost:*']);
    expect(policy.allowOrigin('http://localhost:5173')).toBe('http://localhost:5173');
    expect(policy.allowOrigin('http://localhost')).toBeUndefined();
    expect(policy.allowOrigin('http://127.0.0.1:5173')).toBeUndefined();
    expect(policy.allowOrigin('http://localhost.evil.test:80')).toBeUndefined();
  });

  it('lets * inside an entry stand for subdomains, never for the bare domain or another port', () => {
    const policy = policyFor(['https://*.example.com']);
    expect(policy.allowOrigin('https://app.example.com')).toBe('https://app.example.com');
    expect(policy.allowOrigin('https://a.b.example.com')).toBe('https://a.b.example.com');
    expect(policy.allowOrigin('https://example.com')).toBeUndefined();
    expect(policy.allowOrigin('https://app.example.com:8443')).toBeUndefined();
    expect(policy.allowOrigin('https://evil.test/.example.com')).toBeUndefined();
    expect(policy.allowOrigin('https://appxexample.com')).toBeUndefined();
  });

  it('lets * stand for a scheme', () => {
    const policy = policyFor(['*://app.example']);
    expect(policy.allowOrigin('https://app.example')).toBe('https://app.example');
    expect(policy.allowOrigin('http://app.example')).toBe('http://app.example');
  });

  it('allows any origin for a bare *, answered *', () => {
    const policy = policyFor(['https://app.example', '*']);
    expect(policy.allowOrigin('https://anything.test')).toBe('*');
    expect(policy.allowOrigin('null')).toBe('*');
    expect(policy.allowOrigin(undefined)).toBeUndefined();
    expect(policy.variesByOrigin).toBe(false);
  });

  it('allows the opaque origin null only when listed', () => {
    expect(policyFor(['https://app.example']).allowOrigin('null')).toBeUndefined();
    expect(policyFor(['null']).allowOrigin('null')).toBe('null');
  });
});

describe('FLEET_CORS_ORIGINS at start', () => {
  it('stops the router on an entry that is not an origin, naming the variable and the entry', () => {
    expect(() => loadConfig({ FLEET_CORS_ORIGINS: 'http://localhost:*,app.example:3000' })).toThrow(
      'FLEET_CORS_ORIGINS: "app.example:3000" is not an origin',
    );
  });
});

describe('preflightHeaders', () => {
  const preflight = (origin: string, requestHeaders?: string) =>
    makeHttpEvent({
      method: 'OPTIONS',
      path: '/v1/chat/completions',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        ...(requestHeaders === undefined ? {} : { 'Access-Control-Request-Headers': requestHeaders }),
      },
    });

  it('answers a listed origin with the methods, the requested headers echoed and a max age', () => {
    const headers = preflightHeaders(
      policyFor(['http://localhost:*']),
      preflight('http://localhost:3000', 'authorization, content-type, x-stainless-os, anthropic-version'),
      ['POST'],
    );
    expect(headers).toEqual({
      allow: 'POST, OPTIONS',
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      'access-control-allow-origin': 'http://localhost:3000',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization, content-type, x-stainless-os, anthropic-version',
      'access-control-max-age': '7200',
    });
  });

  it('allows the private network when Chromium asks for a listed origin, and only then', () => {
    const policy = policyFor(['https://app.example']);
    const asking = (origin: string) =>
      makeHttpEvent({
        method: 'OPTIONS',
        path: '/api/chat',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Private-Network': 'true',
        },
      });
    expect(
      preflightHeaders(policy, asking('https://app.example'), ['POST'])['access-control-allow-private-network'],
    ).toBe('true');
    expect(
      preflightHeaders(policy, asking('https://evil.test'), ['POST'])['access-control-allow-private-network'],
    ).toBe(undefined);
    expect(
      preflightHeaders(policy, preflight('https://app.example'), ['POST'])['access-control-allow-private-network'],
    ).toBe(undefined);
  });

  it('gives an unlisted origin no CORS header at all', () => {
    const headers = preflightHeaders(
      policyFor(['http://localhost:*']),
      preflight('https://evil.test', 'authorization'),
      ['POST'],
    );
    expect(Object.keys(headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('does not echo a header list that is not one', () => {
    const headers = preflightHeaders(policyFor(['*']), preflight('https://a.test', 'x-a\r\nset-cookie: a=b'), ['POST']);
    expect(headers['access-control-allow-origin']).toBe('*');
    expect(headers['access-control-allow-headers']).toBeUndefined();
  });
});

describe('withCorsHeaders', () => {
  it('exposes every header the response carries beyond the safelisted ones, and varies by Origin', () => {
    const meta = withCorsHeaders(
      policyFor(['https://app.example']),
      {
        statusCode: 200,
        headers: {
          'content-type': 'text/event-stream',
          'X-Fleet-Node': 'gpu1',
          'x-fleet-model': 'llama3',
          'retry-after': '2',
          vary: 'Accept-Encoding',
        },
      },
      'https://app.example',
    );
    expect(meta.headers).toEqual({
      'content-type': 'text/event-stream',
      'X-Fleet-Node': 'gpu1',
      'x-fleet-model': 'llama3',
      'retry-after': '2',
      vary: 'Accept-Encoding, Origin',
      'access-control-allow-origin': 'https://app.example',
      'access-control-expose-headers': 'X-Fleet-Node, x-fleet-model, retry-after',
    });
  });

  it('adds only Vary: Origin when the origin is not allowed', () => {
    const meta = withCorsHeaders(policyFor(['https://app.example']), { statusCode: 200 }, undefined);
    expect(meta.headers).toEqual({ vary: 'Origin' });
  });
});
