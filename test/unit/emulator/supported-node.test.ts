import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { isAtLeast, parseMinimum, supportedNode, unsupportedNode } from '../../../emulator/supported-node';

const root = join(__dirname, '..', '..', '..');

/** The lowest Node a dependency's `engines.node` allows, for the `>=X[.Y[.Z]]` forms dependencies use. */
function lowestAllowed(range: string): [number, number, number] {
  const match = />=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(range);
  if (match === null) throw new Error(`unread engines range "${range}"`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

describe('supported Node', () => {
  it('reads only a lower bound, and compares versions part by part', () => {
    expect(parseMinimum('>=20.18.1')).toEqual([20, 18, 1]);
    expect(() => parseMinimum('^20')).toThrow(/>=X\.Y\.Z/);
    expect(isAtLeast('v20.18.1', [20, 18, 1])).toBe(true);
    expect(isAtLeast('v20.9.0', [20, 18, 1])).toBe(false);
    expect(isAtLeast('v22.0.0', [20, 18, 1])).toBe(true);
    expect(isAtLeast('20.18.0', [20, 18, 1])).toBe(false);
  });

  it('refuses an older Node with a sentence naming the minimum', () => {
    expect(unsupportedNode('v20.12.0', [20, 18, 1])).toMatch(/^Node v20\.12\.0 is too old: .*20\.18\.1 or newer/);
    expect(unsupportedNode(process.version, supportedNode(root))).toBeUndefined();
  });

  it("is at least what every one of the router's dependencies declares", () => {
    const minimum = supportedNode(root);
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const names = Object.keys(manifest.dependencies);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const dependency = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
        engines?: { node?: string };
      };
      const range = dependency.engines?.node;
      if (range === undefined) continue;
      expect({ name, fits: isAtLeast(minimum.join('.'), lowestAllowed(range)) }).toEqual({ name, fits: true });
    }
  });

  it('is the version the README tells a newcomer', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`Node ${supportedNode(root).join('.')} or newer`);
  });
});
