import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPageFiles, type PageFiles } from '../../../../lib/services/page/page-files';

/** A page directory as scripts/build-page.mjs writes it, with each form's bytes telling which it is. */
let dir: string;
let page: PageFiles;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'page-files-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'app-1.js'), 'plain script');
  writeFileSync(join(dir, 'assets', 'app-1.js.br'), 'brotli script');
  writeFileSync(join(dir, 'assets', 'app-1.js.gz'), 'gzip script');
  writeFileSync(join(dir, 'assets', 'tiny-1.css'), 'a{}');
  writeFileSync(join(dir, 'index.html'), '<!doctype html>');
  writeFileSync(join(dir, 'index.html.gz'), 'gzip html');
  const file = (type: string, encodings: Record<string, number>) => ({ type, size: 1, etag: `"${type}"`, encodings });
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({
      script: 'assets/app-1.js',
      style: 'assets/tiny-1.css',
      files: {
        'assets/app-1.js': file('text/javascript; charset=utf-8', { br: 13, gzip: 11 }),
        'assets/tiny-1.css': file('text/css; charset=utf-8', {}),
        'index.html': file('text/html; charset=utf-8', { gzip: 9 }),
      },
    }),
  );
  page = createPageFiles(dir);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sent = (name: string, acceptEncoding: string | undefined) => {
  const file = page.file(name, acceptEncoding);
  return file === undefined ? undefined : { encoding: file.encoding, body: file.body.toString('utf8') };
};

describe('createPageFiles', () => {
  it('sends brotli when the client takes brotli and gzip equally (brotli is smaller)', () => {
    expect(sent('assets/app-1.js', 'gzip, deflate, br, zstd')).toEqual({ encoding: 'br', body: 'brotli script' });
  });

  it('sends gzip when the client takes only gzip', () => {
    expect(sent('assets/app-1.js', 'gzip')).toEqual({ encoding: 'gzip', body: 'gzip script' });
  });

  it('follows the client’s q-values over the server’s order', () => {
    expect(sent('assets/app-1.js', 'br;q=0.5, gzip;q=0.9')).toEqual({ encoding: 'gzip', body: 'gzip script' });
  });

  it('never sends an encoding the client refuses with q=0', () => {
    expect(sent('assets/app-1.js', 'br;q=0, gzip')).toEqual({ encoding: 'gzip', body: 'gzip script' });
    expect(sent('assets/app-1.js', 'br;q=0, gzip;q=0')).toEqual({ encoding: undefined, body: 'plain script' });
  });

  it('compresses when the client refuses identity and takes an encoding the file has', () => {
    expect(sent('assets/app-1.js', 'gzip, identity;q=0')).toEqual({ encoding: 'gzip', body: 'gzip script' });
    expect(sent('index.html', '*, identity;q=0')).toEqual({ encoding: 'gzip', body: 'gzip html' });
  });

  it('sends the file as built when nothing the client accepts exists (no 406 for a page)', () => {
    expect(sent('assets/tiny-1.css', 'br, identity;q=0')).toEqual({ encoding: undefined, body: 'a{}' });
  });

  it('sends the file as built when the request has no Accept-Encoding', () => {
    expect(sent('assets/app-1.js', undefined)).toEqual({ encoding: undefined, body: 'plain script' });
    expect(sent('index.html', '')).toEqual({ encoding: undefined, body: '<!doctype html>' });
  });

  it('offers only the encodings the build wrote for that file', () => {
    expect(sent('index.html', 'br')).toEqual({ encoding: undefined, body: '<!doctype html>' });
    expect(sent('assets/tiny-1.css', 'gzip, br')).toEqual({ encoding: undefined, body: 'a{}' });
  });

  it('gives the manifest’s type and ETag with every form', () => {
    const file = page.file('assets/app-1.js', 'br');

    expect(file).toMatchObject({ type: 'text/javascript; charset=utf-8', etag: '"text/javascript; charset=utf-8"' });
  });

  it('knows only the files the manifest lists', () => {
    expect(page.file('manifest.json', undefined)).toBeUndefined();
    expect(page.file('assets/app-1.js.br', undefined)).toBeUndefined();
    expect(page.file('../package.json', undefined)).toBeUndefined();
    expect(page.file('constructor', undefined)).toBeUndefined();
  });
});
