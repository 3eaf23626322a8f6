import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../lib/core/errors';
import {
  type FetchImagesOptions,
  fetchImages,
  type ImageUrlAt,
} from '../../../../lib/services/image-urls/fetch-images';
import type { ResolveHost } from '../../../../lib/services/image-urls/image-destination';
import { parseImageUrlAllow } from '../../../../lib/services/platform/image-url-allow';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const FIELD = 'messages.0.content.1.image_url.url';
/** The test server on 127.0.0.1, opened as an operator who serves images internally would. */
const LOOPBACK_ALLOWED = { allow: parseImageUrlAllow(['127.0.0.0/8']) };
/** A public-looking name that points at the test server, as a hostile DNS record would. */
const toLoopback: ResolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
let server: Server;
let port: number;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/cat.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(png);
    } else if (request.url === '/big.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(Buffer.alloc(4096));
    } else if (request.url === '/moved.png') {
      response.writeHead(302, { location: '/cat.png' });
      response.end();
    } else if (request.url === '/to-loopback.png') {
      response.writeHead(302, { location: `http://127.0.0.1:${port}/cat.png` });
      response.end();
    } else if (request.url === '/loop.png') {
      response.writeHead(301, { location: `${base}/loop.png` });
      response.end();
    } else if (request.url === '/to-file.png') {
      response.writeHead(307, { location: 'file:///etc/passwd' });
      response.end();
    } else if (request.url === '/login') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html>sign in</html>');
    } else if (request.url === '/api') {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end('{"error":"unauthorized"}');
    } else if (request.url === '/empty.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end();
    } else if (request.url === '/unlabelled') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(png);
    } else if (request.url === '/slow.png') {
      const timer = setTimeout(() => response.end(png), 2000);
      response.on('close', () => clearTimeout(timer));
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const at = (url: string, field = FIELD): ImageUrlAt => ({ url, field });

/** Fetches one URL; what the client would be told, and what the operator's log got. */
async function failure(url: string, options: FetchImagesOptions = {}) {
  const logged: string[] = [];
  const error = await fetchImages([at(url)], { ...options, log: (line) => logged.push(line) }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return { error, logged };
}

const THE_400 = { status: 400, param: FIELD, message: `${FIELD}: the image URL could not be fetched` };

describe('fetchImages', () => {
  it('fetches each URL once and returns its bytes as base64', async () => {
    const images = await fetchImages([at(`${base}/cat.png`), at(`${base}/cat.png`, 'messages.1')], LOOPBACK_ALLOWED);

    expect([...images.keys()]).toEqual([`${base}/cat.png`]);
    expect(images.get(`${base}/cat.png`)).toBe(png.toString('base64'));
  });

  it.each([
    ['a 404', '/missing.png', {}],
    ['an image over the size bound', '/big.png', { maxBytes: 1024 }],
    ['a server slower than the time bound', '/slow.png', { timeoutMs: 200 }],
  ])('answers 400 for %s', async (_name, path, options) => {
    const { error, logged } = await failure(`${base}${path}`, { ...LOOPBACK_ALLOWED, ...options });

    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject(THE_400);
    expect(logged).toHaveLength(1);
  });

  it('follows redirects to the image', async () => {
    const images = await fetchImages([at(`${base}/moved.png`)], LOOPBACK_ALLOWED);

    expect(images.get(`${base}/moved.png`)).toBe(png.toString('base64'));
  });

  it.each([
    ['a redirect loop', '/loop.png', 'redirected more than 5 times'],
    ['a redirect away from http(s)', '/to-file.png', 'not http(s)'],
    ['a page that is not an image', '/login', 'is not an image (text/html)'],
    ['an API that wants a key', '/api', 'answered 401'],
    ['an empty body', '/empty.png', 'is empty'],
  ])('answers 400 for %s, and only the log says why', async (_name, path, cause) => {
    const { error, logged } = await failure(`${base}${path}`, LOOPBACK_ALLOWED);

    expect(error).toMatchObject(THE_400);
    expect(logged).toEqual([expect.stringContaining(cause)]);
  });

  it('takes an image its server labels as bytes, by its signature', async () => {
    const images = await fetchImages([at(`${base}/unlabelled`)], LOOPBACK_ALLOWED);

    expect(images.get(`${base}/unlabelled`)).toBe(png.toString('base64'));
  });

  it('refuses a URL that is not http(s)', async () => {
    await expect(fetchImages([at('file:///etc/passwd')])).rejects.toThrow('must be http(s) or a data: URI');
  });

  it('names the field of the URL that failed', async () => {
    const images = [
      at(`${base}/cat.png`, 'input.0.content.0.image_url'),
      at(`${base}/login`, 'input.2.content.1.image_url'),
    ];

    await expect(fetchImages(images, { ...LOOPBACK_ALLOWED, log: () => undefined })).rejects.toMatchObject({
      param: 'input.2.content.1.image_url',
    });
  });
});

describe('fetchImages without an allow list', () => {
  it.each([
    ['loopback', `http://127.0.0.1:PORT/cat.png`],
    ['loopback as one decimal number', 'http://2130706433:PORT/cat.png'],
    ['loopback in hex', 'http://0x7f.1:PORT/cat.png'],
    ['loopback as IPv4-mapped IPv6', 'http://[::ffff:127.0.0.1]:PORT/cat.png'],
    ['localhost', 'http://localhost:PORT/cat.png'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['the IPv6 metadata address', 'http://[fd00:ec2::254]/latest/meta-data/'],
    ['a private network', 'http://10.0.0.5:11434/api/tags'],
    ['the unspecified address', 'http://0.0.0.0:PORT/cat.png'],
  ])('refuses %s', async (_name, url) => {
    const { error, logged } = await failure(url.replace('PORT', String(port)));

    expect(error).toMatchObject(THE_400);
    expect(logged).toEqual([expect.stringMatching(/not on the allow list/)]);
  });

  it('refuses a public-looking name that resolves to loopback', async () => {
    const { error, logged } = await failure(`http://images.example:${port}/cat.png`, { resolve: toLoopback });

    expect(error).toMatchObject(THE_400);
    expect(logged).toEqual([expect.stringContaining('images.example is 127.0.0.1 (loopback)')]);
  });

  it('refuses a name with a public and a private address', async () => {
    const resolve: ResolveHost = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];

    const { error } = await failure(`http://images.example:${port}/cat.png`, { resolve });

    expect(error).toMatchObject(THE_400);
  });

  it('tells the client the same for a refused address, a 404 and a page that is not an image', async () => {
    const refused = await failure(`${base}/cat.png`);
    const missing = await failure(`http://images.example:${port}/missing.png`, {
      resolve: toLoopback,
      allow: parseImageUrlAllow(['images.example']),
    });
    const notImage = await failure(`${base}/login`, LOOPBACK_ALLOWED);

    expect(refused.error).toEqual(missing.error);
    expect(missing.error).toEqual(notImage.error);
    expect(refused.error).toMatchObject(THE_400);
  });
});

describe('fetchImages with an allow list', () => {
  it('lets an allowed host name through, connecting to the address it resolved', async () => {
    const url = `http://images.example:${port}/cat.png`;

    const images = await fetchImages([at(url)], { resolve: toLoopback, allow: parseImageUrlAllow(['images.example']) });

    expect(images.get(url)).toBe(png.toString('base64'));
  });

  it('lets a name that resolves into an allowed subnet through', async () => {
    const url = `http://images.example:${port}/cat.png`;

    const images = await fetchImages([at(url)], { resolve: toLoopback, ...LOOPBACK_ALLOWED });

    expect(images.get(url)).toBe(png.toString('base64'));
  });

  it('tries the next address of a name when one does not answer', async () => {
    const url = `http://images.example:${port}/cat.png`;
    const resolve: ResolveHost = async () => [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];

    const images = await fetchImages([at(url)], { resolve, ...LOOPBACK_ALLOWED });

    expect(images.get(url)).toBe(png.toString('base64'));
  });

  it('lets an odd spelling of an allowed address through as that address', async () => {
    const url = `http://2130706433:${port}/cat.png`;

    const images = await fetchImages([at(url)], LOOPBACK_ALLOWED);

    expect(images.get(url)).toBe(png.toString('base64'));
  });

  it('refuses a redirect from an allowed host to one that is not', async () => {
    const { error, logged } = await failure(`http://images.example:${port}/to-loopback.png`, {
      resolve: toLoopback,
      allow: parseImageUrlAllow(['images.example']),
    });

    expect(error).toMatchObject(THE_400);
    expect(logged).toEqual([expect.stringContaining('127.0.0.1 (loopback), not on the allow list')]);
  });

  it('follows a redirect from an allowed host to another allowed one', async () => {
    const url = `http://images.example:${port}/to-loopback.png`;

    const images = await fetchImages([at(url)], {
      resolve: toLoopback,
      allow: parseImageUrlAllow(['images.example', '127.0.0.1']),
    });

    expect(images.get(url)).toBe(png.toString('base64'));
  });
});
