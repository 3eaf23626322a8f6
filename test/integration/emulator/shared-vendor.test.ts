import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { build } from 'esbuild';
import { findVendorBundles } from '../../../emulator/shared-vendor';

/** A dist/ with one vendor bundle and two function folders that each have their own copy. */
function fakeDist(packageName: string) {
  const root = mkdtempSync(join(tmpdir(), 'vendor-'));
  const write = (file: string, text: string) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
  };
  write(join(root, 'vendor', packageName, 'index.js'), 'module.exports = { copy: "shared", loaded: Date.now() };');
  for (const fn of ['alpha', 'beta']) {
    write(join(root, 'functions', fn, 'node_modules', packageName, 'index.js'), `module.exports = { copy: "${fn}" };`);
    write(join(root, 'functions', fn, 'index.js'), '');
  }
  return root;
}

describe('findVendorBundles', () => {
  it('names each bundle by its package path, scoped and sub-path ones included', () => {
    const root = fakeDist('@scope/pkg');
    mkdirSync(join(root, 'vendor', 'plain', 'entry', 'sub'), { recursive: true });
    writeFileSync(join(root, 'vendor', 'plain', 'entry', 'sub', 'index.js'), '');

    expect([...findVendorBundles(join(root, 'vendor')).keys()].sort()).toEqual(['@scope/pkg', 'plain/entry/sub']);
  });

  it('finds nothing where there is no vendor folder', () => {
    expect(findVendorBundles(join(tmpdir(), 'no-such-vendor-dir')).size).toBe(0);
  });
});

describe('shareVendorModules', () => {
  // Module resolution is Node's own, which jest replaces: the check runs in a plain node process.
  it('gives every function bundle the one shared copy of a vendor package', async () => {
    const packageName = 'fleet-shared-vendor-test';
    const root = fakeDist(packageName);
    const hook = join(root, 'shared-vendor.js');
    await build({
      entryPoints: [join(__dirname, '../../../emulator/shared-vendor.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: hook,
      logLevel: 'silent',
    });
    const script = `
      const { createRequire } = require('node:module');
      require(${JSON.stringify(hook)}).shareVendorModules(${JSON.stringify(join(root, 'vendor'))});
      const load = (fn) => createRequire(${JSON.stringify(join(root, 'functions'))} + '/' + fn + '/index.js')(${JSON.stringify(packageName)});
      const alpha = load('alpha');
      process.stdout.write(JSON.stringify({ copy: alpha.copy, same: alpha === load('beta') }));
    `;
    const output = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });

    expect(JSON.parse(output)).toEqual({ copy: 'shared', same: true });
  });
});
