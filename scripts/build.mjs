// Bundles every function listed in serverless.yml into dist/functions/<name>/index.js (one self-contained
// file each, as Lambda receives it), plus the emulator and the benchmark, which run from node_modules.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const serverless = parse(readFileSync(join(root, 'serverless.yml'), 'utf8'), { logLevel: 'silent' });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
  absWorkingDir: root,
};

const functionBuilds = Object.entries(serverless.functions).map(([name, fn]) => {
  const source = join('functions', `${name}.ts`);
  if (!existsSync(join(root, source))) throw new Error(`serverless.yml lists ${name}, but ${source} does not exist`);
  const outfile = `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.js`;
  return build({ ...common, entryPoints: [source], outfile, minify: true, legalComments: 'none' });
});

const toolBuilds = [
  ['emulator/main.ts', 'dist/emulator/main.js'],
  ['bench/main.ts', 'dist/bench/main.js'],
]
  .filter(([source]) => existsSync(join(root, source)))
  .map(([source, outfile]) => build({ ...common, entryPoints: [source], outfile, packages: 'external' }));

await Promise.all([...functionBuilds, ...toolBuilds]);
