// Run after `npm install` changes package-lock.json. The registry these machines reach serves only
// the Linux builds of packages with per-platform binaries (Biome, swc, unrs-resolver), so npm leaves
// the other platforms' optional packages out of the lock file, and `npm ci` then refuses the lock as
// out of sync. This adds each missing optional package with the os/cpu/libc its name states, so
// `npm ci` skips it on every platform it does not fit, as it would with a complete lock file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const path = join(import.meta.dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;

const OS = ['android', 'darwin', 'freebsd', 'linux', 'openharmony', 'win32'];
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  ppc64: 'ppc64',
  s390x: 's390x',
  loong64: 'loong64',
  riscv64: 'riscv64',
};

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS.includes(part));
  const cpu = parts.map((part) => CPU[part]).find((value) => value !== undefined);
  if (os === undefined || cpu === undefined) return undefined;
  const libc = os === 'linux' ? (parts.some((part) => part.startsWith('musl')) ? 'musl' : 'glibc') : undefined;
  return { os: [os], cpu: [cpu], ...(libc === undefined ? {} : { libc: [libc] }) };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location === '' ? 'node_modules' : `${location}/node_modules`;
    if (packages[`${base}/${name}`] !== undefined || packages[`node_modules/${name}`] !== undefined) continue;
    const platform = platformOf(name);
    if (platform === undefined) continue;
    packages[`node_modules/${name}`] = {
      version,
      ...platform,
      optional: true,
      ...(entry.dev === true ? { dev: true } : {}),
    };
    added += 1;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} optional platform packages added`);
