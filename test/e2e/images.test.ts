/**
 * Image generation end to end, as users call it: the built emulator in its own process with
 * `FLEET_IMAGE_GENERATION=true`, two node agents with image sidecars (one also with an Ollama-native
 * image model), the official `openai` client for `/v1/images/generations`, and raw HTTP for the PNG
 * bytes of `/api/generate-image` and the exact status codes (400, 404, 502, 503). Also: the least busy
 * sidecar wins when its agent reports the other busy, and a router started without the switch answers
 * 503 until the dashboard setting turns it on.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { CATALOG, readPngSize, type SimAgent, startSimAgent } from '../../emulator/sim';
import { outcomeWithin } from '../helpers/outcome-within';
import { eventually, type RouterProcess, startRouter } from './router-process';

let router: RouterProcess;
let first: SimAgent;
let second: SimAgent;
let openai: OpenAI;

const Z_IMAGE = { name: 'z-image-turbo', binary: 'mflux-generate-z-image-turbo' };
/** Steps take 50 ms on these sidecars: a 100-step job keeps one busy for 5 s. */
const STEP_MS = 50;

function startImageAgent(
  nodeId: string,
  routerUrl: string,
  models: string[],
  image: { name: string; binary: string }[],
) {
  return startSimAgent({
    nodeId,
    routerUrl,
    intervalMs: 60_000,
    usedGb: 16,
    ollamaOptions: {
      id: nodeId,
      models: CATALOG.filter((entry) => models.includes(entry.name)),
      ttftMs: 1,
      tokensPerSecond: Number.POSITIVE_INFINITY,
    },
    image,
    imageStepMs: STEP_MS,
  });
}

interface ImageModelsBody {
  models: { name: string; type: string; backend: string; fleet_nodes: string[] }[];
}

async function imageModels(url: string): Promise<ImageModelsBody> {
  const response = await fetch(`${url}/api/image-models`);
  expect(response.status).toBe(200);
  return (await response.json()) as ImageModelsBody;
}

function postJson(path: string, body: unknown, base = router.url): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

beforeAll(async () => {
  // Ejections of a sidecar that refused last 1 s here, so the tests after that one find it back soon.
  router = await startRouter({ FLEET_IMAGE_GENERATION: 'true', FLEET_EJECT_BASE_MS: '1000' });
  first = await startImageAgent('image-a', router.url, ['llama3.2:3b', 'x/z-image-turbo:latest'], [Z_IMAGE]);
  second = await startImageAgent(
    'image-b',
    router.url,
    ['llama3.2:3b'],
    [Z_IMAGE, { name: 'flux-schnell', binary: 'mflux-generate' }],
  );
  openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  await eventually(async () => {
    expect((await imageModels(router.url)).models).toHaveLength(3);
  });
}, 30_000);

afterAll(async () => {
  await first?.stop();
  await second?.stop();
  await router?.stop();
});

describe('GET /api/image-models', () => {
  it('lists one entry per backend with the nodes holding it', async () => {
    expect(await imageModels(router.url)).toEqual({
      models: [
        { name: 'flux-schnell', type: 'image', backend: 'mflux', fleet_nodes: ['image-b'] },
        { name: 'x/z-image-turbo:latest', type: 'image', backend: 'ollama', fleet_nodes: ['image-a'] },
        { name: 'z-image-turbo', type: 'image', backend: 'mflux', fleet_nodes: ['image-a', 'image-b'] },
      ],
    });
  });
});

describe('POST /v1/images/generations with the openai client', () => {
  it('answers b64_json with a PNG of the asked size and the routing headers', async () => {
    const { data: result, response } = await openai.images
      .generate({ model: 'z-image-turbo', prompt: 'a lighthouse at dusk', size: '256x256' })
      .withResponse();

    const image = result.data?.[0];
    expect(readPngSize(Buffer.from(image?.b64_json ?? '', 'base64'))).toEqual({ width: 256, height: 256 });
    expect(image?.revised_prompt).toBe('a lighthouse at dusk');
    expect(response.headers.get('x-fleet-node')).toMatch(/^image-[ab]$/);
    expect(response.headers.get('x-fleet-model')).toBe('z-image-turbo');
    const generationMs = response.headers.get('x-generation-time');
    expect(generationMs).toMatch(/^\d+$/);
    expect(Number(generationMs)).toBeLessThan(60_000);
  });

  it('passes steps and seed on: the same seed gives the same image, another seed another', async () => {
    const generate = async (seed: number) => {
      const params = { model: 'x/z-image-turbo', prompt: 'a red fox', size: '256x256' as const, steps: 2, seed };
      const result = await openai.images.generate(params);
      return result.data?.[0]?.b64_json;
    };

    const [once, again, other] = [await generate(7), await generate(7), await generate(8)];

    expect(once).toBeDefined();
    expect(again).toBe(once);
    expect(other).not.toBe(once);
  });

  it('surfaces a model no node has as a 404 naming the fleet’s image models', async () => {
    const failure = await openai.images.generate({ model: 'dall-e-3', prompt: 'a fox' }).catch((error) => error);

    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    expect(failure.message).toContain('image models in the fleet: flux-schnell, x/z-image-turbo:latest, z-image-turbo');
  });

  it('surfaces a failing node as a 502 naming it', async () => {
    second.image?.faults.failNext(5, 500);
    try {
      const failure = await openai.images.generate({ model: 'flux-schnell', prompt: 'a fox' }).catch((error) => error);

      expect(failure).toBeInstanceOf(OpenAI.InternalServerError);
      expect(failure.status).toBe(502);
      expect(failure.message).toContain('image generation failed on image-b: the node answered 500: simulated failure');
    } finally {
      await second.image?.faults.reset();
    }
  });
});

describe('POST /api/generate with an Ollama-native image model', () => {
  it("relays the node's progress lines and its image to the ollama client, streamed and whole", async () => {
    const ollama = new Ollama({ host: router.url });
    const request = { model: 'x/z-image-turbo:latest', prompt: 'a lighthouse', width: 96, height: 64, steps: 2 };

    const parts: { done: boolean; completed?: number; image?: string }[] = [];
    for await (const part of await ollama.generate({ ...request, stream: true })) parts.push(part);
    const whole = await ollama.generate({ ...request, stream: false });

    expect(parts.map((part) => part.completed ?? 'done')).toEqual([1, 2, 'done']);
    for (const image of [parts.at(-1)?.image, whole.image]) {
      expect(readPngSize(Buffer.from(image ?? '', 'base64'))).toEqual({ width: 96, height: 64 });
    }
  });
});

describe('POST /api/generate-image over raw HTTP', () => {
  it('answers the raw PNG bytes with X-Fleet-Node, X-Fleet-Model and X-Generation-Time', async () => {
    const response = await postJson('/api/generate-image', {
      model: 'z-image-turbo',
      prompt: 'a mountain lake',
      width: 320,
      height: 192,
      steps: 1,
    });

    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(readPngSize(bytes)).toEqual({ width: 320, height: 192 });
    expect(response.headers.get('x-fleet-node')).toMatch(/^image-[ab]$/);
    expect(response.headers.get('x-fleet-model')).toBe('z-image-turbo');
    expect(response.headers.get('x-generation-time')).toMatch(/^\d+$/);
    expect(response.headers.get('x-fleet-score')).toMatch(/^-?\d+(\.\d)?$/);
  });

  it('passes a 32×32 image, under any bound the router used to guess, through to the node', async () => {
    const response = await postJson('/api/generate-image', {
      model: 'z-image-turbo',
      prompt: 'an icon',
      width: 32,
      height: 32,
    });

    expect(response.status).toBe(200);
    expect(readPngSize(Buffer.from(await response.arrayBuffer()))).toEqual({ width: 32, height: 32 });
  });

  it('answers /v1 response_format url with the raw PNG, as the spec says', async () => {
    const response = await postJson('/v1/images/generations', {
      model: 'z-image-turbo',
      prompt: 'a fox',
      size: '64x64',
      response_format: 'url',
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(readPngSize(Buffer.from(await response.arrayBuffer()))).toEqual({ width: 64, height: 64 });
  });

  it.each([
    ['/api/generate-image', { model: 'z-image-turbo' }, 400, { error: 'prompt is required' }],
    ['/api/generate-image', { prompt: 'a fox' }, 400, { error: 'model is required' }],
    // A size the node's model does not render is the node's to refuse: its status, its words, the family's shape.
    [
      '/api/generate-image',
      { model: 'z-image-turbo', prompt: 'a fox', height: 5000 },
      400,
      { error: 'width and height must be whole numbers from 1 to 2048' },
    ],
    [
      '/v1/images/generations',
      { model: 'z-image-turbo', prompt: 'a fox', size: '5000x5000' },
      400,
      { error: expect.objectContaining({ message: 'width and height must be whole numbers from 1 to 2048' }) },
    ],
    [
      '/v1/images/generations',
      { model: 'z-image-turbo', prompt: 'a fox', size: '0x10' },
      400,
      { error: expect.objectContaining({ param: 'size', type: 'invalid_request_error' }) },
    ],
    [
      '/api/generate-image',
      { model: 'llama3.2:3b', prompt: 'a fox' },
      404,
      {
        error:
          "image model 'llama3.2:3b' not found on any node; image models in the fleet: flux-schnell, x/z-image-turbo:latest, z-image-turbo",
      },
    ],
  ])('answers %s %j with %i', async (path, body, status, expected) => {
    const response = await postJson(path, body);

    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(expected);
  });

  it('answers 502 naming the node when its sidecar cannot be reached', async () => {
    await second.image?.faults.refuseConnections(true);
    try {
      const response = await postJson('/api/generate-image', { model: 'flux-schnell', prompt: 'a fox' });

      const body = (await response.json()) as { error: string };
      expect(response.status).toBe(502);
      expect(response.headers.get('x-should-retry')).toBe('false');
      // What failed in words; the sidecar's URL and the socket's code are the operator's, not the client's.
      expect(body.error).toBe('image generation failed on image-b: the node refused the connection');
      expect(await imageEjection('image-b')).toMatchObject({
        ejected: true,
        reason: expect.stringContaining('could not connect'),
      });
    } finally {
      await second.image?.faults.refuseConnections(false);
      // Back in routing once its ejection ends: nothing left to show.
      await eventually(async () => expect(await imageEjection('image-b')).toBeUndefined());
    }
  });

  it('retries on the other node when the first one fails', async () => {
    // Both idle: the tie goes to image-a, whose sidecar fails this once.
    first.image?.faults.failNext(1, 500);
    try {
      const response = await postJson('/api/generate-image', {
        model: 'z-image-turbo',
        prompt: 'a fox',
        width: 64,
        height: 64,
        steps: 1,
      });

      expect(response.status).toBe(200);
      expect(response.headers.get('x-fleet-node')).toBe('image-b');
      expect(response.headers.get('x-fleet-retries')).toBe('1');
      expect(readPngSize(Buffer.from(await response.arrayBuffer()))).toEqual({ width: 64, height: 64 });
    } finally {
      await first.image?.faults.reset();
    }
  });
});

/** What `/fleet/status` says of a node's image sidecar's ejection. */
async function imageEjection(nodeId: string): Promise<{ ejected: boolean; reason: string | null } | undefined> {
  const response = await fetch(`${router.url}/fleet/status`);
  const status = (await response.json()) as {
    nodes: { node_id: string; image?: { ejection?: { ejected: boolean; reason: string | null } } }[];
  };
  return status.nodes.find((node) => node.node_id === nodeId)?.image?.ejection;
}

describe('the least busy image node', () => {
  const generateOn = async () => {
    const response = await postJson('/api/generate-image', {
      model: 'z-image-turbo',
      prompt: 'which node?',
      width: 64,
      height: 64,
      steps: 1,
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    return response.headers.get('x-fleet-node');
  };

  it('wins when the other sidecar is busy with work this router did not send', async () => {
    await first.sendHeartbeat();
    await second.sendHeartbeat();
    await eventually(async () => expect(await generateOn()).toBe('image-a'));
    const sidecar = first.image;
    if (sidecar === undefined) throw new Error('image-a has no image sidecar');

    // Another client (or router instance) keeps image-a's sidecar busy for 5 s.
    const elsewhere = postJson(
      '/api/generate-image',
      { model: 'z-image-turbo', prompt: 'long job', width: 64, height: 64, steps: 100 },
      sidecar.url,
    );
    expect(await outcomeWithin(sidecar.whenBusy(), 2000)).toBe('resolved');
    await first.sendHeartbeat();

    await eventually(async () => expect(await generateOn()).toBe('image-b'), 3000);
    expect((await elsewhere).status).toBe(200);
    await first.sendHeartbeat();
    await eventually(async () => expect(await generateOn()).toBe('image-a'));
  }, 20_000);
});

describe('a router started without FLEET_IMAGE_GENERATION', () => {
  let plain: RouterProcess;

  beforeAll(async () => {
    plain = await startRouter();
    await postJson('/heartbeat', second.payload(), plain.url);
    await postJson('/heartbeat', first.payload(), plain.url);
  }, 20_000);

  afterAll(async () => {
    await plain?.stop();
  });

  it('answers /api/generate with an Ollama-native image model 503, saying how to enable it', async () => {
    const off = await postJson(
      '/api/generate',
      { model: 'x/z-image-turbo:latest', prompt: 'a lighthouse', stream: false },
      plain.url,
    );

    expect(off.status).toBe(503);
    expect(((await off.json()) as { error: string }).error).toContain('FLEET_IMAGE_GENERATION=true');
  });

  it('answers 503 saying how to enable it, then generates once the dashboard setting is on', async () => {
    const off = await postJson('/api/generate-image', { model: 'z-image-turbo', prompt: 'a fox' }, plain.url);
    const offBody = (await off.json()) as { error: string };

    expect(off.status).toBe(503);
    expect(off.headers.get('x-should-retry')).toBe('false');
    expect(offBody.error).toContain('FLEET_IMAGE_GENERATION=true');

    const v1 = new OpenAI({ baseURL: `${plain.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const failure = await v1.images.generate({ model: 'z-image-turbo', prompt: 'a fox' }).catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure.status).toBe(503);

    const switched = await postJson('/dashboard/api/settings', { image_generation: true }, plain.url);
    expect(switched.status).toBe(200);

    const on = await eventually(async () => {
      const response = await postJson(
        '/api/generate-image',
        { model: 'z-image-turbo', prompt: 'a fox', width: 64, height: 64, steps: 1 },
        plain.url,
      );
      expect(response.status).toBe(200);
      return Buffer.from(await response.arrayBuffer());
    });
    expect(readPngSize(on)).toEqual({ width: 64, height: 64 });
  }, 20_000);
});
