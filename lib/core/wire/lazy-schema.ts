/**
 * Schemas built on first use, not at module load (ARCHITECTURE.md §6: cold start ≤ 150 ms). zod builds
 * eagerly: every `z.string()`, `z.nullish(…)` and `z.looseObject(…)` allocates an instance, so a wire
 * module's schemas cost milliseconds at `require` in every function that bundles them, though a cold
 * Lambda parses one or two. A `lazySchema` runs its builder on the first call and
 * returns that one instance afterwards, so a sub-schema used in several places is still built once.
 *
 * In `lib/core/wire`, every schema is a `lazySchema`, referenced by calling it inside other builders and
 * parse functions; its type comes from the factory (`InferLazy<typeof fooSchema>`). A schema another
 * module takes as a value (`readJsonBody`, a test's `safeParse`) is exported as `z.lazy(…)`: a real zod
 * schema, one small instance at load, whose inner schema is built on first parse.
 */
import type * as z from './zod';

export function lazySchema<T extends z.ZodMiniType>(build: () => T): () => T {
  let schema: T | undefined;
  return () => {
    schema ??= build();
    return schema;
  };
}

/** What the schema a `lazySchema` factory builds parses to: `z.infer` of the factory's return type. */
export type InferLazy<F extends () => z.ZodMiniType> = z.infer<ReturnType<F>>;
