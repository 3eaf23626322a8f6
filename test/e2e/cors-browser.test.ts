/**
 * CORS from a real browser (spec §4.8): headless Chromium (Debian's, installed by
 * scripts/ensure-chromium.mjs when missing) loads a page from one origin and calls the router, started as
 * a user starts it, on another. A listed origin (`http://localhost:*`) sends an API key (so the browser
 * preflights), reads X-Fleet-Node and streams SSE; an unlisted origin (the same page at 127.0.0.1) is
 * blocked by the browser. EventSource is checked against the wrapper on the emulator's HTTP front with a
 * stand-in for the dashboard's event stream (the dashboard's own routes come with the dashboard issue).
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Browser, chromium, type Page } from 'playwright-core';
import { installAwsLambdaGlobal } from '../../emulator/lambda-runtime';
import type { EmulatorFunction } from '../../emulator/routes';
import { createEmulatorServer } from '../../emulator/server';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { createHandler } from '../../lib/services/http/handler';
import { SSE_TYPE } from '../../lib/services/http/reply';
import { compileRoutePattern } from '../../lib/services/http/route-pattern';
import { eventually, type RouterProcess, startRouter } from './router-process';

const KEY = 'sk-browser-1';
let node: SimNode;
let router: RouterProcess;
let pages: Server;
let events: Server;
let browser: Browser;
let page: Page;
let pagePort: number;
let eventsUrl: string;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

/** The stand-in event stream: the handler wrapper the dashboard uses, on the emulator's HTTP front. */
async function startEventStream(): Promise<Server> {
  installAwsLambdaGlobal();
  const handler = createHandler(
    {
      'GET /dashboard/events': async (_request, response) => {
        response.start({ statusCode: 200, headers: { 'content-type': SSE_TYPE, 'x-fleet-stream': 'dashboard' } });
        await response.write('event: fleet\ndata: {"nodes":1}\n\n');
        await response.end();
      },
    },
    { corsOrigins: ['http://localhost:*'] },
  );
  const fn: EmulatorFunction = {
    name: 'dashboard',
    file: '',
    exportName: 'handler',
    timeoutSeconds: 5,
    scheduled: false,
  };
  const routes = ['GET', 'OPTIONS'].map((method) => ({
    method,
    pattern: compileRoutePattern('/dashboard/events'),
    function: fn,
  }));
  return createEmulatorServer({ table: { routes, functions: [fn], binaryMediaTypes: [] }, loadHandler: () => handler });
}

beforeAll(async () => {
  const executablePath = execFileSync(
    process.execPath,
    [join(__dirname, '..', '..', 'scripts', 'ensure-chromium.mjs')],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  ).trim();
  node = await startSimNode({
    id: 'a',
    models: CATALOG.filter((entry) => entry.name === 'llama3.2:3b'),
    loaded: ['llama3.2:3b'],
  });
  router = await startRouter({
    FLEET_NODES: `a=${node.url}`,
    FLEET_API_KEYS: KEY,
    FLEET_CORS_ORIGINS: 'http://localhost:*',
  });
  await eventually(async () => {
    const tags = await fetch(`${router.url}/api/tags`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(JSON.stringify(await tags.json())).toContain('llama3.2:3b');
  });
  pages = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>client</title><p>a page on another origin</p>');
  });
  pagePort = await listen(pages);
  events = await startEventStream();
  eventsUrl = `http://127.0.0.1:${await listen(events)}/dashboard/events`;
  browser = await chromium.launch({ executablePath, headless: true });
  page = await browser.newPage();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await router?.stop();
  await node?.close();
  await new Promise((resolve) => pages?.close(resolve));
  await new Promise((resolve) => events?.close(resolve));
});

interface PageResult {
  status?: number;
  node?: string | null;
  body?: string;
  error?: string;
}

/** Runs `fetch` inside the page, with the key in a header (so the browser preflights). */
function chatFromPage(stream: boolean): Promise<PageResult> {
  return page.evaluate(
    async ({ url, key, stream }) => {
      try {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hi' }], stream }),
        });
        return { status: response.status, node: response.headers.get('X-Fleet-Node'), body: await response.text() };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url: router.url, key: KEY, stream },
  );
}

describe('a page on a listed origin', () => {
  beforeAll(async () => {
    await page.goto(`http://localhost:${pagePort}/`);
  });

  it('posts a chat with its API key and reads X-Fleet-Node', async () => {
    const result = await chatFromPage(false);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(200);
    expect(result.node).toBe('a');
    expect(JSON.parse(result.body ?? '{}')).toMatchObject({ object: 'chat.completion' });
  });

  it('reads a streamed chat to its end', async () => {
    const result = await chatFromPage(true);
    expect(result.status).toBe(200);
    expect(result.node).toBe('a');
    expect(result.body).toContain('"object":"chat.completion.chunk"');
    expect(result.body?.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('follows an event stream with EventSource', async () => {
    const received = await page.evaluate(
      (url) =>
        new Promise<string>((resolve, reject) => {
          const source = new EventSource(url);
          source.addEventListener('fleet', (event) => {
            source.close();
            resolve((event as unknown as { data: string }).data);
          });
          source.onerror = () => {
            source.close();
            reject(new Error('EventSource failed'));
          };
        }),
      eventsUrl,
    );
    expect(JSON.parse(received)).toEqual({ nodes: 1 });
  });
});

describe('a page on an unlisted origin', () => {
  beforeAll(async () => {
    await page.goto(`http://127.0.0.1:${pagePort}/`);
  });

  it('is blocked by the browser', async () => {
    const result = await chatFromPage(false);
    expect(result.status).toBeUndefined();
    expect(result.error).toContain('Failed to fetch');
  });

  it('cannot follow the event stream', async () => {
    const outcome = await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const source = new EventSource(url);
          source.onmessage = () => resolve('message');
          source.addEventListener('fleet', () => resolve('message'));
          source.onerror = () => {
            source.close();
            resolve('blocked');
          };
        }),
      eventsUrl,
    );
    expect(outcome).toBe('blocked');
  });
});
