/**
 * `POST /dashboard/api/settings` (spec §4.7): the runtime settings an operator may change, in the
 * dashboard's snake_case. Strict: a key the router does not know is a 400 naming it, so a typo never
 * looks like it worked.
 */
import * as z from './zod';

export const settingsUpdateSchema = z.lazy(() =>
  z.strictObject({
    image_generation: z.optional(z.boolean()),
    transcription: z.optional(z.boolean()),
  }),
);

export type SettingsUpdate = z.infer<typeof settingsUpdateSchema>;
