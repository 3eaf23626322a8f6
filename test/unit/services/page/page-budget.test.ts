/**
 * The dashboard page's size budget (issue 23): its script and style sheet together ≤ 150 KB gzipped, as
 * the build wrote them (dist/page/manifest.json; `node scripts/build.mjs`, which `npm test` runs before
 * jest). Prints the raw, gzip and brotli sizes so a change that grows the page shows in the test log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { PageManifest } from '../../../../lib/services/page/page-files';

const BUDGET_GZIP_BYTES = 150 * 1024;
const MANIFEST = join(__dirname, '..', '..', '..', '..', 'dist', 'page', 'manifest.json');

describe('the dashboard page’s size', () => {
  it('keeps its script and style sheet within 150 KB gzipped', () => {
    if (!existsSync(MANIFEST)) throw new Error(`${MANIFEST} is missing: run "node scripts/build.mjs" (npm test does)`);
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as PageManifest;
    const rows = [manifest.script, manifest.style, 'index.html'].map((name) => {
      const file = manifest.files[name];
      if (file === undefined) throw new Error(`the manifest lists no ${name}`);
      const gzip = file.encodings['gzip'];
      if (gzip === undefined) throw new Error(`the build wrote no gzip form of ${name}`);
      return { name, raw: file.size, gzip, brotli: file.encodings['br'] ?? file.size };
    });
    const [script, style] = rows as [(typeof rows)[number], (typeof rows)[number]];
    const total = {
      name: 'script + style',
      raw: script.raw + style.raw,
      gzip: script.gzip + style.gzip,
      brotli: script.brotli + style.brotli,
    };
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`.padStart(9);
    console.log(
      [
        `dashboard page sizes (budget ${kb(BUDGET_GZIP_BYTES).trim()} gzipped for script + style):`,
        `  ${'file'.padEnd(28)}      raw     gzip   brotli`,
        ...[...rows, total].map((row) => `  ${row.name.padEnd(28)}${kb(row.raw)}${kb(row.gzip)}${kb(row.brotli)}`),
      ].join('\n'),
    );

    expect(total.gzip).toBeLessThanOrEqual(BUDGET_GZIP_BYTES);
  });
});
