/**
 * One copy of each vendor package for every function in the process. In AWS each function runs in its
 * own container with the AWS SDK and undici bundled beside it (scripts/build.mjs); the emulator runs
 * every function in one process, where those per-function copies would each load on first use — about
 * 20 MB per copy of the SDK. So requests for a vendor package, from a function bundle or from the
 * emulator itself, resolve to the one bundle in `dist/vendor`, loaded once, still on first use. The
 * packages keep no per-function state: each function creates its own clients and agents.
 */
import { existsSync, readdirSync } from 'node:fs';
import Module from 'node:module';
import { join, relative, sep } from 'node:path';

type Resolve = (request: string, parent: unknown, ...rest: unknown[]) => string;

/** Package name (`undici`, `@aws-sdk/client-dynamodb`) → its bundle, for every `<name>/index.js` under `dir`. */
export function findVendorBundles(dir: string): Map<string, string> {
  const bundles = new Map<string, string>();
  const visit = (current: string) => {
    const file = join(current, 'index.js');
    if (current !== dir && existsSync(file)) bundles.set(relative(dir, current).split(sep).join('/'), file);
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.isDirectory()) visit(join(current, entry.name));
    }
  };
  if (existsSync(dir)) visit(dir);
  return bundles;
}

/** Makes `require(name)` of each vendor package resolve to its one bundle under `vendorDir`. */
export function shareVendorModules(vendorDir: string): ReadonlyMap<string, string> {
  const bundles = findVendorBundles(vendorDir);
  if (bundles.size === 0) return bundles;
  const original = Reflect.get(Module, '_resolveFilename') as Resolve;
  const resolve: Resolve = function (this: unknown, request, parent, ...rest) {
    return bundles.get(request) ?? original.call(this, request, parent, ...rest);
  };
  Reflect.set(Module, '_resolveFilename', resolve);
  return bundles;
}
