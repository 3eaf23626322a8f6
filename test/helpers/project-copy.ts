/**
 * A fresh clone's view of the project for tests that run the Serverless Framework: the sources the build
 * and serverless.yml read, copied to a temporary folder with the project's node_modules linked in, and no
 * dist/. A command run there builds that folder's dist/ (as on a fresh clone), never the one the other
 * tests run from while it builds.
 */
import { cp, mkdtemp, realpath, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

/** What a clone holds that the build and serverless.yml read; dist/ is left out on purpose. */
const SOURCES = [
  'functions',
  'lib',
  'dashboard',
  'emulator',
  'scripts',
  'serverless',
  'serverless.yml',
  'package.json',
  'tsconfig.json',
];

/** A copy of the sources in a new temporary folder (`prefix` names it), with node_modules linked. */
export async function cloneProject(prefix = 'fleet-clone-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await Promise.all(SOURCES.map((name) => cp(join(root, name), join(dir, name), { recursive: true })));
  await symlink(await realpath(join(root, 'node_modules')), join(dir, 'node_modules'), 'dir');
  return dir;
}
