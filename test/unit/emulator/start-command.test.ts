import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { emulatorNodeFlags } from '../../../emulator/start-command';

const root = join(__dirname, '..', '..', '..');

function projectWith(scripts: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'start-command-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts }));
  return dir;
}

describe('emulatorNodeFlags', () => {
  it('reads the Node flags between node and the emulator entry of the start script', () => {
    const dir = projectWith({ start: 'node scripts/build.mjs && node --a=1 --b dist/emulator/main.js' });
    expect(emulatorNodeFlags(dir)).toEqual(['--a=1', '--b']);
  });

  it('is empty when the emulator runs with no flags, and throws when the script does not run it', () => {
    expect(emulatorNodeFlags(projectWith({ start: 'node dist/emulator/main.js' }))).toEqual([]);
    expect(() => emulatorNodeFlags(projectWith({ start: 'node other.js' }))).toThrow(/does not run/);
  });

  it('gives the demo the same heap settings as the router itself', () => {
    const flags = emulatorNodeFlags(root);
    expect(flags).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-semi-space-size=\d+$/)]));
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const demo = projectWith({ start: scripts['demo'] ?? '' });
    expect(emulatorNodeFlags(demo)).toEqual(flags);
  });
});
