/**
 * The one zod every module validates with: `zod/mini` with English messages and compiled objects. The
 * classic `zod` API hangs every method on every schema class, so a bundle carries all of it (~90 KB
 * minified, ~15 ms to compile and run at `require`); `zod/mini` is functions (`z.optional(s)`,
 * `s.check(z.minLength(1))`) that esbuild keeps only when used, over the same parser and the same issues.
 *
 * Two things classic zod does that mini leaves out are put back here:
 * - Messages: mini ships none of its own ("Invalid input"); loading zod's English locale gives every
 *   issue the words classic zod gives (`Invalid input: expected string, received number`).
 * - Compiled objects: classic objects compile a parser for their shape on first parse (`$ZodObjectJIT`),
 *   mini objects walk the shape every time, 3× slower on a chat request. `object`, `looseObject` and
 *   `strictObject` below are mini objects with that compiled parser; they shadow mini's own.
 *
 * Import as `import * as z from './zod'` (biome refuses any other zod import in lib).
 */
import { en } from 'zod/locales';
// biome-ignore lint/style/noRestrictedImports: the one module that loads zod
import * as mini from 'zod/mini';
// biome-ignore lint/style/noRestrictedImports: the one module that loads zod
import { $constructor, type $ZodLooseShape, type $ZodObject, type $ZodObjectDef, $ZodObjectJIT } from 'zod/v4/core';

mini.config(en());

// biome-ignore lint/style/noRestrictedImports: the one module that loads zod
export * from 'zod/mini';

const compiledParse: $constructor<$ZodObject> = $ZodObjectJIT;
const miniObject: $constructor<mini.ZodMiniObject> = mini.ZodMiniObject;

/** A `ZodMiniObject` (same traits, `instanceof` and `shape`) whose parse is classic zod's compiled one. */
const CompiledObject: $constructor<mini.ZodMiniObject> = $constructor(
  'ZodMiniObjectJIT',
  (inst: mini.ZodMiniObject, def) => {
    compiledParse.init(inst, def);
    miniObject.init(inst, def);
  },
);

function compiledObject(def: $ZodObjectDef): never {
  return new CompiledObject(def) as never;
}

/** An object that drops keys it does not name. */
export function object<T extends $ZodLooseShape>(shape: T): ReturnType<typeof mini.object<T>> {
  return compiledObject({ type: 'object', shape });
}

/** An object that keeps keys it does not name, unchecked. */
export function looseObject<T extends $ZodLooseShape>(shape: T): ReturnType<typeof mini.looseObject<T>> {
  return compiledObject({ type: 'object', shape, catchall: mini.unknown() });
}

/** An object that refuses keys it does not name. */
export function strictObject<T extends $ZodLooseShape>(shape: T): ReturnType<typeof mini.strictObject<T>> {
  return compiledObject({ type: 'object', shape, catchall: mini.never() });
}
