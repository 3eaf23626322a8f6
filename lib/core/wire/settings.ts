/**
 * `POST /dashboard/api/settings` (spec §4.7): the runtime settings an operator may change, in the
 * dashboard's snake_case. A value sets the setting; `null` clears the operator's override, so the
 * environment's value applies again (issue 44 item 7). Strict: a key the router does not know is a 400
 * naming it, so a typo never looks like it worked.
 */
import * as z from './zod';

export const settingsUpdateSchema = z.lazy(() =>
  z.strictObject({
    image_generation: z.optional(z.nullable(z.boolean())),
    transcription: z.optional(z.nullable(z.boolean())),
  }),
);

export type SettingsUpdate = z.infer<typeof settingsUpdateSchema>;
