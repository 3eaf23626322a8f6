import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { emulatorStart } from '../../../emulator/start-command';

const root = join(__dirname, '..', '..', '..');

function projectWith(scripts: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'start-command-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts }));
  return dir;
}

describe('emulatorStart', () => {
  it('reads the variables before node and the Node flags between node and the emulator entry', () => {
    const dir = projectWith({ start: 'node scripts/build.mjs && A_B=1 C=x=y node --a=1 --b dist/emulator/main.js' });
    expect(emulatorStart(dir)).toEqual({ env: { A_B: '1', C: 'x=y' }, nodeFlags: ['--a=1', '--b'] });
  });

  it('is empty when the emulator runs bare, and throws when the script does not run it', () => {
    expect(emulatorStart(projectWith({ start: 'node dist/emulator/main.js' }))).toEqual({ env: {}, nodeFlags: [] });
    expect(() => emulatorStart(projectWith({ start: 'node other.js' }))).toThrow(/does not run/);
  });

  it('refuses a word before node that is not an assignment, rather than dropping it', () => {
    expect(() => emulatorStart(projectWith({ start: 'nice -n 5 node dist/emulator/main.js' }))).toThrow(/"nice"/);
  });

  it('gives the demo the same heap and allocator settings as the router itself', () => {
    const start = emulatorStart(root);
    expect(start.nodeFlags).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-semi-space-size=\d+$/)]));
    expect(start.env).toEqual({ MALLOC_ARENA_MAX: '1' });
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const demo = projectWith({ start: scripts['demo'] ?? '' });
    expect(emulatorStart(demo)).toEqual(start);
  });
});
