/**
 * The README and the guides in docs/ name commands and files a reader will type or open: every
 * `npm run <script>` they name is a script of package.json, and every repository path they quote in
 * backticks exists (a folder, a file, or a glob's folder). Commands that start the router or the demo are
 * run as written by their own end-to-end tests (first-run, demo, serverless offline and package).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const root = join(__dirname, '..', '..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: object }).scripts,
);

/** Folders whose files a document may quote; a quoted path starting with one of them must exist. */
const TRACKED = /^(?:lib|bench|emulator|scripts|test|docs|functions|dashboard|deploy|serverless)\//;

/**
 * Paths quoted in backticks — a file with its extension, or a folder with its slash (`dashboard/fleet`
 * alone is a URL's path) — cut at an anchor, a line number or a glob.
 */
function quotedPaths(text: string): string[] {
  const paths: string[] = [];
  for (const [, quoted = ''] of text.matchAll(/`([^`\s]+)`/g)) {
    if (!TRACKED.test(quoted) || !/(?:\.[a-z]+|\/)(?:[#:].*)?$/.test(quoted)) continue;
    const path = quoted.replace(/[#:].*$/, '').replace(/\/?[^/]*[*{<…].*$/, '');
    if (path !== '') paths.push(path);
  }
  return paths;
}

describe.each(documents)('%s', (document) => {
  const text = readFileSync(join(root, document), 'utf8');

  it('names only npm scripts that exist', () => {
    const named = [...text.matchAll(/npm run ([a-z][\w:-]*)/g)].map(([, name]) => name);
    expect(named.filter((name) => !scripts.includes(name ?? ''))).toEqual([]);
  });

  it('quotes only repository paths that exist', () => {
    expect(quotedPaths(text).filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });
});
