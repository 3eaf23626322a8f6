/**
 * Which Node.js runs the router: package.json's `engines.node` (`>=X.Y.Z`) is the one statement of it,
 * raised to what the router's own dependencies declare (undici 7 needs 20.18.1) and checked by a test
 * against them and the README. The emulator refuses an older Node with that sentence rather than fail
 * later on a missing API.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Version = readonly [number, number, number];

/** `>=20.18.1` → [20, 18, 1]; throws on any other form (only a lower bound is stated). */
export function parseMinimum(range: string): Version {
  const match = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(range.trim());
  if (match === null) throw new Error(`engines.node must be ">=X.Y.Z", got "${range}"`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export function isAtLeast(version: string, minimum: Version): boolean {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let index = 0; index < 3; index += 1) {
    const have = parts[index] ?? 0;
    const need = minimum[index] ?? 0;
    if (have !== need) return have > need;
  }
  return true;
}

/** The minimum from the project's package.json. */
export function supportedNode(root: string): Version {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  return parseMinimum(manifest.engines?.node ?? '');
}

/** A sentence when `version` is older than the minimum, else undefined. */
export function unsupportedNode(version: string, minimum: Version): string | undefined {
  if (isAtLeast(version, minimum)) return undefined;
  return `Node ${version} is too old: Fleet Router needs Node ${minimum.join('.')} or newer (Node 22 is what AWS Lambda runs)`;
}
