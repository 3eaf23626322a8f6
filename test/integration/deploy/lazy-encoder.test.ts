/**
 * The encoder (~1 MB of ranks, ~150 ms to load) is loaded by the first count, not by importing the
 * counter: bundled as scripts/build.mjs bundles a handler, with the encoder external.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { build } from 'esbuild';

const root = join(__dirname, '..', '..', '..');
const ENCODER = 'gpt-tokenizer/encoding/cl100k_base';
const directory = mkdtempSync(join(tmpdir(), 'lazy-encoder-'));

afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('the cl100k encoder in a bundle', () => {
  it('is required on the first count, not when the bundle loads', async () => {
    const outfile = join(directory, 'index.js');
    const { metafile } = await build({
      entryPoints: [join(root, 'lib', 'core', 'tokens', 'count-tokens.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      minify: true,
      external: [ENCODER],
      outfile,
      metafile: true,
      logLevel: 'silent',
    });
    const probe = `
      const loaded = () => Object.keys(require.cache).some((path) => path.includes('gpt-tokenizer'));
      const { countTokens } = require(${JSON.stringify(outfile)});
      const before = loaded();
      const tokens = countTokens('hello world');
      process.stdout.write(JSON.stringify({ before, after: loaded(), tokens }));`;

    const output = execFileSync(process.execPath, ['-e', probe], {
      env: { ...process.env, NODE_PATH: join(root, 'node_modules') },
    }).toString();

    expect(Object.values(metafile.outputs).flatMap((out) => out.imports.map((i) => i.path))).toContain(ENCODER);
    expect(JSON.parse(output)).toEqual({ before: false, after: true, tokens: 2 });
  });
});
