/**
 * The one zod every module validates with: `zod/mini` with English messages. The classic `zod` API
 * hangs every method on every schema class, so a bundle carries all of it (~90 KB minified, ~15 ms to
 * compile and run at `require`); `zod/mini` is functions (`z.optional(s)`, `s.check(z.minLength(1))`)
 * that esbuild keeps only when used, over the same parser and the same issues. Mini ships no messages
 * of its own ("Invalid input"); loading zod's English locale here gives every issue the words classic
 * zod gives (`Invalid input: expected string, received number`).
 *
 * Import as `import * as z from './zod'` (biome refuses `zod` and `zod/mini` anywhere else in lib).
 */
import { en } from 'zod/locales';
// biome-ignore lint/style/noRestrictedImports: the one module that loads zod
import { config } from 'zod/mini';

config(en());

// biome-ignore lint/style/noRestrictedImports: the one module that loads zod
export * from 'zod/mini';
