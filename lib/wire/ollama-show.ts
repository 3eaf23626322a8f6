/** The `POST /api/show` request (protocols §2.9): `model`, or the legacy `name`; `verbose` fills tokenizer arrays. */
import * as z from 'zod';

/** Lazy (built on first parse, see `lazy-schema.ts`): the handler passes it to `readJsonBody` as a value. */
export const ollamaShowRequestSchema = z.lazy(() =>
  z.looseObject({
    model: z.string().optional(),
    name: z.string().optional(),
    verbose: z.boolean().optional(),
  }),
);

export type OllamaShowRequest = z.infer<typeof ollamaShowRequestSchema>;
