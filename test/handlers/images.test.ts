/**
 * The image routes in process on both hosts (`functions/media` and `functions/openai`), against a
 * simulated node agent with an image sidecar and an Ollama-native image model, and the table in
 * in-process dynalite: off until switched on (at run time too), the 400s naming the field, the 404
 * naming the fleet's image models, raw PNG bytes through the buffered host (base64) and the streaming
 * one, the `/v1` JSON, the model list, and every node failure as a 502 naming the node.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CATALOG, readPngSize, type SimAgent, startSimAgent } from '../../emulator/sim';
import { routes as fleetRoutes } from '../../functions/fleet';
import { routes as mediaRoutes } from '../../functions/media';
import { routes as openaiRoutes } from '../../functions/openai';
import { initServices, type Services } from '../../lib/instance';
import { createBufferedHandler, createStreamingHandler, type RouteTable } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { httpResponseStreamFrom, RecordingStream } from '../helpers/recording-stream';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

interface BinaryReply {
  readonly statusCode: number;
  /** On the streaming host, as read back from the prelude. */
  readonly headers: Readonly<Record<string, string>>;
  readonly bytes: Buffer;
}

type BinaryHost = (routes: RouteTable, body: object, path: string) => Promise<BinaryReply>;

function post(path: string, body: object) {
  return makeHttpEvent({ method: 'POST', path, body, sourceIp: '127.0.0.1' });
}

const BINARY_HOSTS: readonly (readonly [string, BinaryHost])[] = [
  [
    'buffered',
    async (routes, body, path) => {
      const result = await createBufferedHandler(routes)(post(path, body));
      const bytes = Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
      return { statusCode: result.statusCode, headers: result.headers, bytes };
    },
  ],
  [
    'streaming',
    async (routes, body, path) => {
      const stream = new RecordingStream();
      await createStreamingHandler(routes, {}, httpResponseStreamFrom)(post(path, body), stream);
      const reply = stream.reply();
      return { statusCode: reply.statusCode, headers: reply.headers, bytes: reply.body };
    },
  ],
];

const json = (reply: BinaryReply): unknown => JSON.parse(reply.bytes.toString('utf8'));

let store: StoreFixture;
let services: Services;
let agent: SimAgent;
let notPng: Server;

async function heartbeat(payload: object): Promise<void> {
  const result = await createBufferedHandler(fleetRoutes(services))(post('/heartbeat', payload));
  expect(result.statusCode).toBe(200);
}

async function startNotPngServer(): Promise<Server> {
  const server = createServer((_request, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>maintenance</html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

beforeAll(async () => {
  store = await startStore('images');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  agent = await startSimAgent({
    nodeId: 'studio',
    ollamaOptions: {
      id: 'studio',
      models: CATALOG.filter((entry) => ['llama3.2:3b', 'x/z-image-turbo:latest'].includes(entry.name)),
      tokensPerSecond: Number.POSITIVE_INFINITY,
      ttftMs: 1,
    },
    image: [{ name: 'z-image-turbo', binary: 'mflux-generate-z-image-turbo' }],
    imageStepMs: 1,
  });
  notPng = await startNotPngServer();
  const payload = agent.payload();
  await heartbeat(payload);
  // A second machine whose "sidecar" answers a web page instead of a PNG.
  await heartbeat({
    ...payload,
    node_id: 'broken',
    ollama: { ...payload.ollama, models_loaded: [], models_available: [], models_available_sizes: {} },
    image: { models_available: [{ name: 'broken-model', binary: 'diffusionkit-cli' }], generating: false },
    image_port: (notPng.address() as AddressInfo).port,
  });
  await services.registry.refresh();
});

afterAll(async () => {
  await closeServices(services);
  await agent.stop();
  await new Promise((resolve) => notPng.close(resolve));
  await store.close();
});

describe('image generation switched off', () => {
  describe.each(BINARY_HOSTS)('%s host', (_name, host) => {
    it('answers /api/generate-image with 503 saying how to switch it on, and no retry', async () => {
      const reply = await host(
        mediaRoutes(services),
        { model: 'z-image-turbo', prompt: 'a fox' },
        '/api/generate-image',
      );

      const body = json(reply) as { error: string };
      expect(body.error).toContain('FLEET_IMAGE_GENERATION=true');
      expect(body.error).toContain('POST /dashboard/api/settings {"image_generation": true}');
      expect(reply.statusCode).toBe(503);
      expect(reply.headers['x-should-retry']).toBe('false');
    });

    it("answers /v1/images/generations with 503 in OpenAI's error shape, before reading the body", async () => {
      const reply = await host(openaiRoutes(services), { prompt: 'no model either' }, '/v1/images/generations');

      expect(json(reply)).toEqual({
        error: expect.objectContaining({ message: expect.stringContaining('image generation is disabled') }),
      });
      expect(reply.statusCode).toBe(503);
    });
  });

  it('still lists the image models', async () => {
    const result = await createBufferedHandler(mediaRoutes(services))(makeHttpEvent({ path: '/api/image-models' }));

    expect(JSON.parse(result.body)).toEqual({
      models: [
        { name: 'broken-model', type: 'image', backend: 'diffusionkit', fleet_nodes: ['broken'] },
        { name: 'x/z-image-turbo:latest', type: 'image', backend: 'ollama', fleet_nodes: ['studio'] },
        { name: 'z-image-turbo', type: 'image', backend: 'mflux', fleet_nodes: ['studio'] },
      ],
    });
  });
});

describe('image generation switched on at run time', () => {
  beforeAll(async () => {
    await services.settings.update({ imageGeneration: true });
  });

  describe.each(BINARY_HOSTS)('%s host', (_name, host) => {
    it('answers /api/generate-image with the raw PNG of the asked size and the fleet headers', async () => {
      const reply = await host(
        mediaRoutes(services),
        { model: 'z-image-turbo', prompt: 'a fox', width: 96, height: 64, steps: 2 },
        '/api/generate-image',
      );

      expect(readPngSize(reply.bytes)).toEqual({ width: 96, height: 64 });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers).toMatchObject({
        'content-type': 'image/png',
        'x-fleet-node': 'studio',
        'x-fleet-model': 'z-image-turbo',
        'x-generation-time': expect.stringMatching(/^\d+$/),
        'x-fleet-score': expect.stringMatching(/^-?\d+(\.\d)?$/),
      });
      expect(Number(reply.headers['x-generation-time'])).toBeLessThan(60_000);
    });

    it('defaults to 1024×1024', async () => {
      const reply = await host(
        mediaRoutes(services),
        { model: 'z-image-turbo', prompt: 'a fox' },
        '/api/generate-image',
      );

      expect(readPngSize(reply.bytes)).toEqual({ width: 1024, height: 1024 });
    });

    it('generates with the Ollama-native image model through the node’s /api/generate', async () => {
      const reply = await host(
        mediaRoutes(services),
        { model: 'x/z-image-turbo', prompt: 'a fox', width: 80, height: 80, steps: 2 },
        '/api/generate-image',
      );

      expect(readPngSize(reply.bytes)).toEqual({ width: 80, height: 80 });
      expect(reply.headers['x-fleet-model']).toBe('x/z-image-turbo:latest');
    });

    it('answers /v1/images/generations with b64_json by default', async () => {
      const reply = await host(
        openaiRoutes(services),
        { model: 'z-image-turbo', prompt: 'a fox', size: '128x96' },
        '/v1/images/generations',
      );

      const body = json(reply) as { created: number; data: { b64_json: string; revised_prompt: string }[] };
      expect(body.data).toHaveLength(1);
      expect(body.data[0]?.revised_prompt).toBe('a fox');
      expect(readPngSize(Buffer.from(body.data[0]?.b64_json ?? '', 'base64'))).toEqual({ width: 128, height: 96 });
      expect(Math.abs(body.created - Date.now() / 1000)).toBeLessThan(60);
      expect(reply.headers['x-fleet-node']).toBe('studio');
    });

    it('answers response_format url with the raw PNG', async () => {
      const reply = await host(
        openaiRoutes(services),
        { model: 'z-image-turbo', prompt: 'a fox', size: '64x64', response_format: 'url' },
        '/v1/images/generations',
      );

      expect(readPngSize(reply.bytes)).toEqual({ width: 64, height: 64 });
      expect(reply.headers['content-type']).toBe('image/png');
    });

    it.each([
      [{ prompt: 'a fox' }, 'model', 'model is required'],
      [{ model: 'z-image-turbo' }, 'prompt', 'prompt is required'],
      [{ model: 'z-image-turbo', prompt: 'a fox', width: 0 }, 'width', 'width must be a positive whole number'],
      [{ model: 'z-image-turbo', prompt: 'a fox', steps: 'many' }, 'steps', 'steps: must be a whole number'],
    ])('answers /api/generate-image %j with 400 naming %s', async (body, _param, message) => {
      const reply = await host(mediaRoutes(services), body, '/api/generate-image');

      expect(json(reply)).toEqual({ error: expect.stringContaining(message) });
      expect(reply.statusCode).toBe(400);
    });

    it.each([
      [{ prompt: 'a fox' }, 'model'],
      [{ model: 'z-image-turbo', prompt: '' }, 'prompt'],
      [{ model: 'z-image-turbo', prompt: 'a fox', size: '1024' }, 'size'],
      [{ model: 'z-image-turbo', prompt: 'a fox', response_format: 'webp' }, 'response_format'],
      [{ model: 'z-image-turbo', prompt: 'a fox', n: 3 }, 'n'],
    ])("answers /v1/images/generations %j with 400 in OpenAI's shape naming %s", async (body, param) => {
      const reply = await host(openaiRoutes(services), body, '/v1/images/generations');

      expect(json(reply)).toEqual({ error: expect.objectContaining({ type: 'invalid_request_error', param }) });
      expect(reply.statusCode).toBe(400);
    });

    it('answers a model no node has with 404 naming the image models there are', async () => {
      const reply = await host(mediaRoutes(services), { model: 'llama3.2:3b', prompt: 'a fox' }, '/api/generate-image');

      expect(json(reply)).toEqual({
        error:
          "image model 'llama3.2:3b' not found on any node; image models in the fleet: broken-model, x/z-image-turbo:latest, z-image-turbo",
      });
      expect(reply.statusCode).toBe(404);
    });

    it('answers a reply that is not a PNG with 502 naming the node', async () => {
      const reply = await host(
        openaiRoutes(services),
        { model: 'broken-model', prompt: 'a fox', size: '64x64' },
        '/v1/images/generations',
      );

      expect(json(reply)).toEqual({
        error: expect.objectContaining({
          message: expect.stringMatching(
            /^image generation failed on broken: the node's reply is not a PNG image \(\d+ bytes, content type text\/html\)$/,
          ),
        }),
      });
      expect(reply.statusCode).toBe(502);
    });

    it('answers a sidecar that fails with 500 by 502 with its message', async () => {
      agent.image?.faults.failNext(5, 500);
      try {
        const reply = await host(
          mediaRoutes(services),
          { model: 'z-image-turbo', prompt: 'a fox' },
          '/api/generate-image',
        );

        expect(json(reply)).toEqual({
          error: 'image generation failed on studio: the node answered 500: simulated failure',
        });
        expect(reply.statusCode).toBe(502);
        expect(reply.headers['x-should-retry']).toBe('false');
      } finally {
        await agent.image?.faults.reset();
      }
    });
  });

  describe('sizes are the node’s to judge', () => {
    const generate = (routes: RouteTable, path: string, body: object) =>
      createBufferedHandler(routes)(post(path, { model: 'z-image-turbo', prompt: 'a fox', ...body }));

    it('passes a 32×32 image through to the node and answers its PNG', async () => {
      const before = agent.image?.received.length ?? 0;

      const reply = await generate(mediaRoutes(services), '/api/generate-image', { width: 32, height: 32 });

      expect(reply.statusCode).toBe(200);
      expect(readPngSize(Buffer.from(reply.body, 'base64'))).toEqual({ width: 32, height: 32 });
      expect(agent.image?.received.slice(before)).toMatchObject([{ width: 32, height: 32 }]);
    });

    it('passes size 32x32 on /v1/images/generations through to the node', async () => {
      const reply = await generate(openaiRoutes(services), '/v1/images/generations', { size: '32x32' });
      const body = JSON.parse(reply.body) as { data: { b64_json: string }[] };

      expect(reply.statusCode).toBe(200);
      expect(readPngSize(Buffer.from(body.data[0]?.b64_json ?? '', 'base64'))).toEqual({ width: 32, height: 32 });
    });

    it.each([
      ['width', 0],
      ['width', -1],
      ['height', 1.5],
      ['height', 'abc'],
    ])('answers %s %p with 400 naming it, before any node is asked', async (field, value) => {
      const before = agent.image?.received.length ?? 0;

      const reply = await generate(mediaRoutes(services), '/api/generate-image', { [field]: value });

      expect(reply.statusCode).toBe(400);
      expect((JSON.parse(reply.body) as { error: string }).error).toContain(field);
      expect(agent.image?.received.length).toBe(before);
    });

    it.each(['0x32', '-1x32', '1.5x32', 'abc'])('answers size %p with 400 in OpenAI’s shape', async (size) => {
      const reply = await generate(openaiRoutes(services), '/v1/images/generations', { size });

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toMatchObject({ error: { type: 'invalid_request_error', param: 'size' } });
    });

    it('relays a size the node refuses as its 400 and its words, in Ollama’s shape', async () => {
      // The simulated sidecar renders up to 2048 px and says so in FastAPI's {"detail": ...}.
      const reply = await generate(mediaRoutes(services), '/api/generate-image', { width: 4000, height: 32 });

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({ error: 'width and height must be whole numbers from 1 to 2048' });
    });

    it('relays a node’s 422 with its message in OpenAI’s shape', async () => {
      agent.image?.faults.failNext(1, 422);
      try {
        const reply = await generate(openaiRoutes(services), '/v1/images/generations', { size: '64x64' });

        expect(reply.statusCode).toBe(422);
        expect(JSON.parse(reply.body)).toMatchObject({ error: { message: 'simulated failure' } });
      } finally {
        await agent.image?.faults.reset();
      }
    });
  });

  it('traces the request like chat: style image, the node, the model and the tags', async () => {
    const record = jest.spyOn(services.traces, 'record');
    try {
      await createBufferedHandler(mediaRoutes(services))(
        makeHttpEvent({
          method: 'POST',
          path: '/api/generate-image',
          headers: { 'X-Service-Tags': 'batch' },
          body: {
            model: 'z-image-turbo',
            prompt: 'a fox',
            width: 64,
            height: 64,
            user: 'ada',
            metadata: { tags: ['art'] },
          },
        }),
      );

      expect(record).toHaveBeenCalledTimes(1);
      expect(record).toHaveBeenCalledWith(
        expect.objectContaining({
          style: 'image',
          status: 'completed',
          requestedModel: 'z-image-turbo',
          servedModel: 'z-image-turbo',
          nodeId: 'studio',
          tags: ['art', 'batch', 'user:ada'],
        }),
      );
    } finally {
      record.mockRestore();
    }
  });

  it('traces a node that answers something else than a PNG as failed', async () => {
    const record = jest.spyOn(services.traces, 'record');
    try {
      await createBufferedHandler(mediaRoutes(services))(
        post('/api/generate-image', { model: 'broken-model', prompt: 'a fox' }),
      );

      expect(record).toHaveBeenCalledWith(
        expect.objectContaining({
          style: 'image',
          status: 'failed',
          nodeId: 'broken',
          error: expect.stringContaining('image generation failed on broken'),
        }),
      );
    } finally {
      record.mockRestore();
    }
  });

  it('traces a request for an image model no node has as failed', async () => {
    const record = jest.spyOn(services.traces, 'record');
    try {
      await createBufferedHandler(mediaRoutes(services))(
        post('/api/generate-image', { model: 'flux-dev', prompt: 'a fox' }),
      );

      expect(record).toHaveBeenCalledWith(
        expect.objectContaining({
          style: 'image',
          status: 'failed',
          requestedModel: 'flux-dev',
          error: expect.stringContaining("image model 'flux-dev' not found on any node"),
        }),
      );
    } finally {
      record.mockRestore();
    }
  });

  it('forwards steps, guidance, seed and the extra fields to the sidecar, and nothing of the router’s', async () => {
    const before = agent.image?.received.length ?? 0;

    await createBufferedHandler(openaiRoutes(services))(
      post('/v1/images/generations', {
        model: 'z-image-turbo',
        prompt: 'a fox',
        size: '64x128',
        steps: 3,
        guidance: 2.5,
        seed: 11,
        negative_prompt: 'rain',
        user: 'ada',
        metadata: { tags: ['art'] },
      }),
    );

    expect(agent.image?.received.slice(before)).toEqual([
      {
        negative_prompt: 'rain',
        model: 'z-image-turbo',
        prompt: 'a fox',
        width: 64,
        height: 128,
        steps: 3,
        guidance: 2.5,
        seed: 11,
      },
    ]);
  });
});
