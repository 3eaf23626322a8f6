/**
 * The dashboard page served in process on both hosts, from the page as the build writes it (dist/page,
 * built by `node scripts/build.mjs`, which `npm test` runs before jest): `/dashboard` redirects to the
 * first view; every view (and its alias) is the HTML, revalidated by ETag, under a Content-Security-Policy;
 * the hashed assets go out with their type, a year's immutable cache and the best encoding the client
 * takes, their bytes the built file's once decoded; an unknown view or asset is a 404 in the API's error
 * shape; and behind FLEET_API_KEYS the page opens without a key while its API still asks for one.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import { DASHBOARD_VIEWS } from '../../lib/core/dashboard/views';
import { initServices, type Services } from '../../lib/instance';
import {
  createBufferedHandler,
  createStreamingHandler,
  type HandlerOptions,
  type RouteTable,
} from '../../lib/services/http/handler';
import type { LambdaHttpEvent } from '../../lib/services/http/request';
import { createPageFiles, type PageManifest } from '../../lib/services/page/page-files';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { httpResponseStreamFrom, RecordingStream } from '../helpers/recording-stream';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

const PAGE = join(__dirname, '..', '..', 'dist', 'page');
const YEAR = 'public, max-age=31536000, immutable';
const KEY = 'sk-page-1';

/** What a client gets, the body as bytes (compressed bodies are binary); `base64` where the host said so. */
interface RawReply {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly isBase64Encoded: boolean | undefined;
}

type RawHost = (routes: RouteTable, event: LambdaHttpEvent, options?: HandlerOptions) => Promise<RawReply>;

const HOSTS: readonly (readonly [string, RawHost])[] = [
  [
    'buffered',
    async (table, event, options = {}) => {
      const result = await createBufferedHandler(table, options)(event);
      return {
        statusCode: result.statusCode,
        headers: result.headers,
        body: Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'),
        isBase64Encoded: result.isBase64Encoded,
      };
    },
  ],
  [
    'streaming',
    async (table, event, options = {}) => {
      const stream = new RecordingStream();
      await createStreamingHandler(table, options, httpResponseStreamFrom)(event, stream);
      const reply = stream.reply();
      return { statusCode: reply.statusCode, headers: reply.headers, body: reply.body, isBase64Encoded: undefined };
    },
  ],
];

let store: StoreFixture;
let services: Services;
let table: RouteTable;

if (!existsSync(join(PAGE, 'manifest.json')))
  throw new Error(`${PAGE} is missing: run "node scripts/build.mjs" (npm test does) first`);
const manifest = JSON.parse(readFileSync(join(PAGE, 'manifest.json'), 'utf8')) as PageManifest;

beforeAll(async () => {
  store = await startStore('dashboard-page');
  services = initServices(
    loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName, FLEET_API_KEYS: KEY }),
  );
  table = routes(services, createPageFiles(PAGE));
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const get = (path: string, headers: Record<string, string> = {}) => makeHttpEvent({ method: 'GET', path, headers });
const built = (name: string) => readFileSync(join(PAGE, name));
const decoded = (reply: RawReply) => {
  switch (reply.headers['content-encoding']) {
    case 'br':
      return brotliDecompressSync(reply.body);
    case 'gzip':
      return gunzipSync(reply.body);
    case undefined:
      return reply.body;
    default:
      throw new Error(`unexpected content-encoding ${reply.headers['content-encoding']}`);
  }
};

const ASSETS = [
  ['script', manifest.script, 'text/javascript; charset=utf-8'],
  ['style sheet', manifest.style, 'text/css; charset=utf-8'],
];

describe('the dashboard page', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('redirects /dashboard to the first view by a relative Location', async () => {
      const reply = await host(table, get('/dashboard'));

      expect(reply.statusCode).toBe(302);
      expect(reply.headers['location']).toBe(`dashboard/${DASHBOARD_VIEWS[0].id}`);
    });

    it.each([...DASHBOARD_VIEWS.map((view) => view.id), 'apps'])(
      'answers /dashboard/%s with the page, revalidated by its ETag, under a CSP',
      async (view) => {
        const reply = await host(table, get(`/dashboard/${view}`));

        expect(reply.statusCode).toBe(200);
        expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(reply.headers['cache-control']).toBe('no-cache');
        expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
        expect(reply.headers['content-security-policy']).toContain("connect-src 'self'");
        expect(reply.headers['content-encoding']).toBeUndefined();
        expect(reply.body.equals(built('index.html'))).toBe(true);
        const etag = reply.headers['etag'];
        expect(etag).toMatch(/^"[\w-]+"$/);

        const again = await host(table, get(`/dashboard/${view}`, { 'if-none-match': etag as string }));

        expect(again.statusCode).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers['etag']).toBe(etag);
      },
    );

    it('answers a stale ETag with the page itself', async () => {
      const reply = await host(table, get('/dashboard/fleet', { 'if-none-match': '"an-older-build"' }));

      expect(reply.statusCode).toBe(200);
      expect(reply.body.equals(built('index.html'))).toBe(true);
    });

    it.each([
      ['view', '/dashboard/nope'],
      ['asset', '/dashboard/assets/app-NOPE.js'],
      ['asset outside the manifest', '/dashboard/assets/manifest.json'],
    ])('answers an unknown %s with a 404 in the API’s error shape', async (_what, path) => {
      const reply = await host(table, get(path));

      expect(reply.statusCode).toBe(404);
      expect(JSON.parse(reply.body.toString('utf8'))).toEqual({
        error: {
          message: expect.stringContaining(`"${path.split('/').at(-1)}"`),
          type: 'invalid_request_error',
          param: null,
          code: 'not_found',
        },
      });
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
    });

    it.each(ASSETS)('sends the %s with its type and a year’s immutable cache', async (_what, name, type) => {
      const reply = await host(table, get(`/dashboard/${name}`, { 'accept-encoding': 'gzip, deflate, br' }));

      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-type']).toBe(type);
      expect(reply.headers['cache-control']).toBe(YEAR);
      expect(reply.headers['vary']).toBe('accept-encoding');
      expect(reply.headers['content-security-policy']).toBeUndefined();
    });

    it.each(ASSETS)('sends the %s brotli-compressed when brotli is accepted', async (_what, name) => {
      const reply = await host(table, get(`/dashboard/${name}`, { 'accept-encoding': 'gzip, deflate, br, zstd' }));

      expect(reply.headers['content-encoding']).toBe('br');
      expect(reply.body.length).toBeLessThan(built(name).length);
      expect(decoded(reply).equals(built(name))).toBe(true);
    });

    it.each(ASSETS)('sends the %s gzipped when only gzip is accepted', async (_what, name) => {
      const reply = await host(table, get(`/dashboard/${name}`, { 'accept-encoding': 'gzip' }));

      expect(reply.headers['content-encoding']).toBe('gzip');
      expect(decoded(reply).equals(built(name))).toBe(true);
    });

    it.each(ASSETS)('sends the %s as built when no encoding is accepted', async (_what, name) => {
      const reply = await host(table, get(`/dashboard/${name}`));

      expect(reply.headers['content-encoding']).toBeUndefined();
      expect(reply.body.equals(built(name))).toBe(true);
    });

    it('compresses the page too when the client takes it', async () => {
      const reply = await host(table, get('/dashboard/fleet', { 'accept-encoding': 'br' }));

      expect(reply.headers['content-encoding']).toBe('br');
      expect(decoded(reply).equals(built('index.html'))).toBe(true);
    });

    it('opens the page and its assets without a key while the API still asks for one', async () => {
      const options = { apiKeys: services.config.apiKeys };
      const [view, script, style, api, events] = await Promise.all([
        host(table, get('/dashboard/fleet'), options),
        host(table, get(`/dashboard/${manifest.script}`), options),
        host(table, get(`/dashboard/${manifest.style}`), options),
        host(table, get('/dashboard/api/overview'), options),
        host(table, get('/dashboard/events'), options),
      ]);

      expect([view, script, style, api, events].map((reply) => reply.statusCode)).toEqual([200, 200, 200, 401, 401]);
      const home = await host(table, get('/dashboard'), options);
      expect(home.statusCode).toBe(302);
    });
  });

  it('sends compressed bodies on the buffered host (serverless-offline) as base64', async () => {
    const [, buffered] = HOSTS[0] as (typeof HOSTS)[number];
    const compressed = await buffered(table, get(`/dashboard/${manifest.script}`, { 'accept-encoding': 'gzip' }));
    const plain = await buffered(table, get('/dashboard/fleet'));

    expect(compressed.isBase64Encoded).toBe(true);
    expect(gunzipSync(compressed.body).equals(built(manifest.script))).toBe(true);
    expect(plain.isBase64Encoded).toBe(false);
  });
});
