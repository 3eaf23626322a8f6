/**
 * How `npm start` runs the emulator: the environment assignments and Node flags of package.json's `start`
 * script around `node … dist/emulator/main.js` (`MALLOC_ARENA_MAX=1 node --max-semi-space-size=4 …`). The
 * benchmark and the end-to-end tests start the router with exactly these, so what they measure and test is
 * what a user runs; the script stays the one place they live.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ENTRY = 'dist/emulator/main.js';
const ASSIGNMENT = /^([A-Z_][A-Z0-9_]*)=(.*)$/;

export interface EmulatorStart {
  /** Variables the script sets for Node, e.g. `{ MALLOC_ARENA_MAX: '1' }`. */
  readonly env: Readonly<Record<string, string>>;
  /** Flags between `node` and the entry, e.g. `['--max-semi-space-size=4']`. */
  readonly nodeFlags: readonly string[];
}

/** Reads the `start` script; throws if it does not run the emulator. */
export function emulatorStart(root: string): EmulatorStart {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const start = manifest.scripts?.['start'] ?? '';
  const command = start.split('&&').find((part) => part.includes(ENTRY));
  if (command === undefined) throw new Error(`package.json's start script does not run ${ENTRY}: "${start}"`);
  const words = command.trim().split(/\s+/);
  const node = words.indexOf('node');
  const env: Record<string, string> = {};
  for (const word of words.slice(0, node)) {
    const assignment = ASSIGNMENT.exec(word);
    if (assignment?.[1] === undefined || assignment[2] === undefined) {
      throw new Error(`package.json's start script has "${word}" before node: only NAME=value is understood`);
    }
    env[assignment[1]] = assignment[2];
  }
  return { env, nodeFlags: words.slice(node + 1, words.indexOf(ENTRY)) };
}
