/** The `POST /api/show` request (protocols §2.9): `model`, or the legacy `name`; `verbose` fills tokenizer arrays. */
import * as z from './zod';

/** Lazy (built on first parse, see `lazy-schema.ts`): the handler passes it to `readJsonBody` as a value. */
export const ollamaShowRequestSchema = z.lazy(() =>
  z.looseObject({
    model: z.optional(z.string()),
    name: z.optional(z.string()),
    verbose: z.optional(z.boolean()),
  }),
);

export type OllamaShowRequest = z.infer<typeof ollamaShowRequestSchema>;
