/**
 * Image URLs end to end (issue 19 item 3): the built emulator with only `localhost` on
 * `FLEET_IMAGE_URL_ALLOW`, a simulated vision node and an image server on 127.0.0.1. The router's own
 * API, the node's API, the metadata address and a redirect out of the allowed host are all refused with
 * one 400 that names the field and nothing else; the allowed host's image reaches the model.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
let vision: SimNode;
let router: RouterProcess;
let images: Server;
let imagePort: number;
let openai: OpenAI;

beforeAll(async () => {
  images = createServer((request, response) => {
    if (request.url === '/pixel.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(PIXEL);
    } else {
      // Out of the allowed host, back to the router's own address.
      response.writeHead(302, { location: `${router.url}/fleet/status` });
      response.end();
    }
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imagePort = (images.address() as AddressInfo).port;
  vision = await startSimNode({ id: 'v', models: CATALOG.filter((entry) => entry.name === 'llava:7b') });
  router = await startRouter({ FLEET_NODES: `v=${vision.url}`, FLEET_IMAGE_URL_ALLOW: 'localhost' });
  openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  await eventually(async () => {
    const listed = await openai.models.list();
    expect(listed.data.map((model) => model.id)).toContain('llava:7b');
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await vision?.close();
  images?.closeAllConnections();
  await new Promise((resolve) => images?.close(resolve));
});

function ask(url: string) {
  return openai.chat.completions.create({
    model: 'llava:7b',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is in this picture' },
          { type: 'image_url', image_url: { url } },
        ],
      },
    ],
  });
}

describe('image URLs', () => {
  it('fetches an image from an allowed host', async () => {
    const reply = await ask(`http://localhost:${imagePort}/pixel.png`);

    expect(reply.choices[0]?.message.content).toContain('[1 image]');
  });

  it.each([
    ['the router itself', () => `${router.url}/fleet/status`],
    ["the node's API", () => `${vision.url}/api/tags`],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a redirect from the allowed host to the router', () => `http://localhost:${imagePort}/elsewhere`],
  ])('refuses %s with one 400 that tells nothing of it', async (_name, url) => {
    const chatsBefore = vision.requests.filter((request) => request.path === '/api/chat').length;

    const error = await ask(url()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );

    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({
      status: 400,
      error: {
        message: 'messages.0.content.1.image_url.url: the image URL could not be fetched',
        type: 'invalid_request_error',
        param: 'messages.0.content.1.image_url.url',
        code: 'invalid_image_url',
      },
    });
    expect(vision.requests.filter((request) => request.path === '/api/chat')).toHaveLength(chatsBefore);
  });
});
