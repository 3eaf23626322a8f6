/**
 * How `npm start` runs the emulator: the Node flags in package.json's `start` script, between `node`
 * and `dist/emulator/main.js`. The benchmark and the end-to-end tests start the router with exactly
 * these, so what they measure and test is what a user runs; the script stays the one place they live.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ENTRY = 'dist/emulator/main.js';

/** The flags `npm start` gives Node, e.g. `['--max-semi-space-size=8']`; throws if the script does not run the emulator. */
export function emulatorNodeFlags(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const start = manifest.scripts?.['start'] ?? '';
  const command = start.split('&&').find((part) => part.includes(ENTRY));
  if (command === undefined) throw new Error(`package.json's start script does not run ${ENTRY}: "${start}"`);
  const words = command.trim().split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf(ENTRY));
}
