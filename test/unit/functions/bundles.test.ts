/**
 * Each function bundle is self-contained, as Lambda receives it: the handler plus the lazily loaded
 * vendor bundles (AWS SDK, undici) beside it, resolved from there and not from the project's node_modules.
 */

import { existsSync } from 'node:fs';
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
});
