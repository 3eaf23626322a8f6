/**
 * V8's own view of an object's layout, for tests that check hot-path objects stay cheap (see
 * lib/core/merged.ts for why that matters). The flag is set before the checks are
 * compiled, so the intrinsics parse.
 */
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--allow-natives-syntax');

/** Whether two objects share one hidden class (map). */
export const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** False for an object in dictionary mode, as an object literal with getters ends up. */
export const hasFastProperties = new Function('a', 'return %HasFastProperties(a)') as (a: object) => boolean;
