/**
 * Image URLs in all three chat styles (issue 19 item 3): a URL that points at the router's own network
 * is refused by default with the family's 400, which names the field and says nothing of what answered
 * there; `FLEET_IMAGE_URL_ALLOW` opens a private destination, and its image reaches the node.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { routes as messagesRoutes } from '../../functions/messages';
import { routes as openaiRoutes } from '../../functions/openai';
import { getServices, type Services } from '../../lib/instance';
import { createBufferedHandler, type RouteTable } from '../../lib/services/http/handler';
import { makeHttpEvent } from '../helpers/events';
import { makeLoadedModel, makeNodeModel } from '../helpers/factories';
import { type ScriptedNodesFixture, startScriptedNodes } from '../helpers/scripted-nodes';

const MODEL = 'llava:7b';
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
let images: Server;
let imageBase: string;
/** The images each chat request brought to the node. */
let received: unknown[] = [];

beforeAll(async () => {
  images = createServer((request, response) => {
    if (request.url === '/cat.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(png);
    } else if (request.url === '/api/tags') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"models":[]}');
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});

afterAll(async () => {
  images.closeAllConnections();
  await new Promise((resolve) => images.close(resolve));
});

function startNode(label: string, env: Record<string, string>): Promise<ScriptedNodesFixture> {
  const node = {
    record: {
      id: 'gpu1',
      models: [makeNodeModel({ name: MODEL, capabilities: ['completion', 'vision'] })],
      loaded: [makeLoadedModel({ name: MODEL })],
    },
    answer: (_request: unknown, response: import('node:http').ServerResponse, body: string) => {
      const sent = JSON.parse(body) as { messages: { images?: string[] }[] };
      received.push(...sent.messages.flatMap((message) => message.images ?? []));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          model: MODEL,
          message: { role: 'assistant', content: 'a cat' },
          done: true,
          done_reason: 'stop',
          prompt_eval_count: 3,
          eval_count: 2,
        }),
      );
    },
  };
  return startScriptedNodes(label, [node], env);
}

interface Style {
  readonly name: string;
  readonly routes: (services: Services) => RouteTable;
  readonly path: string;
  readonly body: (url: string) => object;
  /** The field the URL sits in. */
  readonly field: string;
  readonly error: (message: string, field: string) => object;
}

const STYLES: readonly Style[] = [
  {
    name: 'openai chat',
    routes: openaiRoutes,
    path: '/v1/chat/completions',
    body: (url) => ({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
    }),
    field: 'messages.0.content.1.image_url.url',
    error: (message, field) => ({
      error: { message, type: 'invalid_request_error', param: field, code: 'invalid_image_url' },
    }),
  },
  {
    name: 'anthropic messages',
    routes: messagesRoutes,
    path: '/v1/messages',
    body: (url) => ({
      model: MODEL,
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'url', url } },
          ],
        },
      ],
    }),
    field: 'messages.0.content.1.source.url',
    error: (message) => ({ type: 'error', error: { type: 'invalid_request_error', message } }),
  },
  {
    name: 'responses',
    routes: openaiRoutes,
    path: '/v1/responses',
    body: (url) => ({
      model: MODEL,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: url },
          ],
        },
      ],
    }),
    field: 'input.0.content.1.image_url',
    error: (message, field) => ({
      error: { message, type: 'invalid_request_error', param: field, code: 'invalid_image_url' },
    }),
  },
];

async function send(style: Style, url: string) {
  received = [];
  const event = makeHttpEvent({ method: 'POST', path: style.path, body: style.body(url) });
  const reply = await createBufferedHandler(() => style.routes(getServices()))(event);
  return { status: reply.statusCode, body: JSON.parse(reply.body) as unknown };
}

describe('image URLs without an allow list', () => {
  let fixture: ScriptedNodesFixture;
  const warn = jest.spyOn(console, 'warn');
  beforeAll(async () => {
    fixture = await startNode('image-url-guard-default', {});
    warn.mockImplementation(() => undefined);
  });
  afterAll(async () => {
    warn.mockRestore();
    await fixture.close();
  });

  describe.each(STYLES)('$name', (style) => {
    const refused = style.error(`${style.field}: the image URL could not be fetched`, style.field);

    it('refuses an image server on 127.0.0.1 with 400 naming the field, and the node gets nothing', async () => {
      const reply = await send(style, `${imageBase}/cat.png`);

      expect(reply).toEqual({ status: 400, body: refused });
      expect(received).toEqual([]);
      expect(warn).toHaveBeenLastCalledWith(expect.stringContaining('127.0.0.1 (loopback), not on the allow list'));
    });

    it.each([
      ['the metadata address', 'http://169.254.169.254/latest/meta-data/iam/'],
      ['an API on loopback spelt as one decimal number', 'http://2130706433:PORT/api/tags'],
      ['a missing image', 'IMAGES/missing.png'],
      ['a page that is no image', 'IMAGES/api/tags'],
    ])('answers the same 400 for %s', async (_name, url) => {
      const reply = await send(style, url.replace('IMAGES', imageBase).replace('PORT', new URL(imageBase).port));

      expect(reply).toEqual({ status: 400, body: refused });
    });
  });
});

describe('image URLs with FLEET_IMAGE_URL_ALLOW=127.0.0.1', () => {
  let fixture: ScriptedNodesFixture;
  beforeAll(async () => {
    fixture = await startNode('image-url-guard-allow', { FLEET_IMAGE_URL_ALLOW: '127.0.0.1' });
  });
  afterAll(async () => {
    await fixture.close();
  });

  it.each(STYLES)('$name: fetches the image and sends its bytes to the node', async (style) => {
    const reply = await send(style, `${imageBase}/cat.png`);

    expect(reply).toMatchObject({ status: 200 });
    expect(received).toEqual([png.toString('base64')]);
  });
});
