import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../lib/errors';
import { fetchImages } from '../../../lib/media/fetch-images';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
let server: Server;
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
    } else if (request.url === '/loop.png') {
      response.writeHead(301, { location: `${base}/loop.png` });
      response.end();
    } else if (request.url === '/to-file.png') {
      response.writeHead(307, { location: 'file:///etc/passwd' });
      response.end();
    } else if (request.url === '/login') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html>sign in</html>');
    } else if (request.url === '/empty.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end();
    } else if (request.url === '/unlabelled') {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(png);
    } else if (request.url === '/slow.png') {
      setTimeout(() => response.end(png), 2000);
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('fetchImages', () => {
  it('fetches each URL once and returns its bytes as base64', async () => {
    const images = await fetchImages([`${base}/cat.png`, `${base}/cat.png`]);

    expect([...images.keys()]).toEqual([`${base}/cat.png`]);
    expect(images.get(`${base}/cat.png`)).toBe(png.toString('base64'));
  });

  it.each([
    ['a 404', '/missing.png', {}],
    ['an image over the size bound', '/big.png', { maxBytes: 1024 }],
    ['a server slower than the time bound', '/slow.png', { timeoutMs: 200 }],
  ])('answers 400 for %s', async (_name, path, options) => {
    await expect(fetchImages([`${base}${path}`], options)).rejects.toBeInstanceOf(BadRequestError);
  });

  it('follows redirects to the image', async () => {
    const images = await fetchImages([`${base}/moved.png`]);

    expect(images.get(`${base}/moved.png`)).toBe(png.toString('base64'));
  });

  it.each([
    ['a redirect loop', '/loop.png', 'redirected more than 5 times'],
    ['a redirect away from http(s)', '/to-file.png', 'which is not http(s)'],
  ])('answers 400 for %s', async (_name, path, message) => {
    await expect(fetchImages([`${base}${path}`], { param: 'messages.0.content' })).rejects.toMatchObject({
      status: 400,
      param: 'messages.0.content',
      message: expect.stringContaining(message),
    });
  });

  it.each([
    ['a page that is not an image', '/login', 'is not an image (text/html)'],
    ['an empty body', '/empty.png', 'is empty'],
  ])('answers 400 for %s', async (_name, path, message) => {
    await expect(fetchImages([`${base}${path}`])).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining(message),
    });
  });

  it('takes an image its server labels as bytes, by its signature', async () => {
    const images = await fetchImages([`${base}/unlabelled`]);

    expect(images.get(`${base}/unlabelled`)).toBe(png.toString('base64'));
  });

  it('refuses a URL that is not http(s)', async () => {
    await expect(fetchImages(['file:///etc/passwd'])).rejects.toThrow('must be http(s) or a data: URI');
  });
});
