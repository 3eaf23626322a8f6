// Makes sure Debian's Chromium is at /usr/bin/chromium for the browser tests (test/e2e/cors-browser.test.ts,
// CORS from a real page on another origin). Installs it with apt-get when it is missing and this runs as
// root (CI: `npm ci && npm test` on a clean machine); otherwise exits non-zero saying what to run.
// `node scripts/ensure-chromium.mjs` prints the browser's path.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

export function ensureChromium(log = (line) => console.error(line)) {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    throw new Error(
      `${CHROMIUM} is missing and cannot be installed from here (needs root and apt-get): ` +
        'run "apt-get update && apt-get install -y chromium" to run the browser tests',
    );
  }
  log(`ensure-chromium: ${CHROMIUM} is missing; installing Debian's chromium with apt-get (a few minutes, once)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args) => execFileSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  run(['update']);
  run(['install', '-y', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(ensureChromium());
