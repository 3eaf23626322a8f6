/** The `POST /api/show` request (protocols §2.9): `model`, or the legacy `name`; `verbose` fills tokenizer arrays. */
import * as z from 'zod';

export const ollamaShowRequestSchema = z.looseObject({
  model: z.string().optional(),
  name: z.string().optional(),
  verbose: z.boolean().optional(),
});

export type OllamaShowRequest = z.infer<typeof ollamaShowRequestSchema>;
