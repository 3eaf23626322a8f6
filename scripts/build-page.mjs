// Builds the dashboard page (issue 23) from its files under dashboard/ into dist/page/: the app's
// TypeScript and CSS bundled and minified by esbuild under hashed names (assets/app-<hash>.js|css, cached
// for a year by the browser), index.html naming them (revalidated on every load), each file beside its
// gzip and brotli forms when they are smaller, and manifest.json with each file's type, ETag and encodings,
// which the dashboard function serves from (lib/services/page/page-files.ts). The page loads nothing
// from elsewhere: it works in a private network with no internet.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Writes `<file>.br` and `<file>.gz` where they save bytes; returns the encodings written. */
function precompress(path, bytes) {
  const encodings = {};
  const forms = [
    ['br', '.br', () => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })],
    ['gzip', '.gz', () => gzipSync(bytes, { level: 9 })],
  ];
  for (const [encoding, suffix, compress] of forms) {
    const compressed = compress();
    if (compressed.length >= bytes.length) continue;
    writeFileSync(path + suffix, compressed);
    encodings[encoding] = compressed.length;
  }
  return encodings;
}

/** Builds the page into `<root>/dist/page` and returns the manifest. */
export async function buildPage(root, { minify = true } = {}) {
  const source = join(root, 'dashboard');
  const out = join(root, 'dist', 'page');
  rmSync(out, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: { app: join(source, 'src', 'main.tsx') },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    // Browsers of the last two years: what an operator's laptop or phone runs.
    target: ['chrome109', 'edge109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: join(out, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    minify,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = Object.keys(metafile.outputs).map((path) => relative(out, join(root, path)));
  const script = outputs.find((path) => path.endsWith('.js'));
  const style = outputs.find((path) => path.endsWith('.css'));
  if (script === undefined || style === undefined) throw new Error('the page build made no script or no style sheet');
  const html = readFileSync(join(source, 'index.html'), 'utf8')
    .replaceAll('{{script}}', script)
    .replaceAll('{{style}}', style);
  writeFileSync(join(out, 'index.html'), html);

  const files = {};
  for (const path of filesUnder(out)) {
    const name = relative(out, path).split('\\').join('/');
    const type = TYPES[extname(path)];
    if (type === undefined) throw new Error(`the page build made ${basename(path)}, of no known content type`);
    const bytes = readFileSync(path);
    files[name] = {
      type,
      size: bytes.length,
      etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`,
      encodings: precompress(path, bytes),
    };
  }
  const manifest = { script, style, files };
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
