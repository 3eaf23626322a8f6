/**
 * Each function bundle is self-contained, as Lambda receives it: the handler plus the lazily loaded
 * vendor bundles (AWS SDK, undici; the multipart parser for media) beside it, resolved from there and not
 * from the project's node_modules. The emulator runs its own bundle of every handler, so these are
 * loaded here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { readRouteTable } from '../../../emulator/routes';

const root = join(__dirname, '..', '..', '..');
const table = readRouteTable(join(root, 'serverless.yml'));

describe('function bundles (npm test builds them first)', () => {
  it.each(table.functions.map((fn) => [fn.name, fn.file] as const))(
    '%s loads its vendor packages from beside itself',
    (_name, file) => {
      expect(existsSync(file)).toBe(true);
      for (const vendor of ['@aws-sdk/client-dynamodb', 'undici']) {
        const resolved = require.resolve(vendor, { paths: [dirname(file)] });
        expect(resolved).toBe(join(dirname(file), 'node_modules', vendor, 'index.js'));
      }
    },
  );

  it.each(table.functions.map((fn) => [fn.name, fn.file, fn.exportName] as const))(
    '%s exports its handler as serverless.yml names it',
    (_name, file, exportName) => {
      expect(typeof (require(file) as Record<string, unknown>)[exportName]).toBe('function');
    },
  );

  it("has the emulator's bundle export every function's handler under the function's name", () => {
    const handlers = require(join(root, 'dist', 'emulator', 'handlers.js')) as Record<string, unknown>;

    for (const fn of table.functions) expect(typeof handlers[fn.name]).toBe('function');
  });

  it('media loads the multipart parser from beside itself, on first use, not as part of its bundle', () => {
    const media = table.functions.find((fn) => fn.name === 'media');
    if (media === undefined) throw new Error('serverless.yml lists no media function');
    const resolved = require.resolve('@fastify/busboy', { paths: [dirname(media.file)] });
    expect(resolved).toBe(join(dirname(media.file), 'node_modules', '@fastify', 'busboy', 'index.js'));
    const bundle = readFileSync(media.file, 'utf8');
    expect(bundle).toContain('require("@fastify/busboy")');
    // busboy's own message for a missing boundary is in its code, so only an inlined copy has it.
    expect(bundle).not.toContain('Multipart: Boundary not found');
  });
});
