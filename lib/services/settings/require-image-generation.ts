/**
 * Image generation is off unless an operator turns it on (spec §4.2, §4.5, §7: 503 when disabled;
 * ARCHITECTURE.md §7 `FLEET_IMAGE_GENERATION`): the environment's default, or the runtime setting every
 * instance reads from the table. The 503 says how to enable it and carries `x-should-retry: false` —
 * retrying cannot help until someone does. Answers how long reading the settings waited for the table,
 * for the request's trace.
 */
import { ServiceUnavailableError } from '../../core/errors';
import type { RuntimeSettings } from './runtime-settings';

export const IMAGE_GENERATION_DISABLED =
  'image generation is disabled: start the router with FLEET_IMAGE_GENERATION=true, ' +
  'or turn it on at run time with POST /dashboard/api/settings {"image_generation": true}';

export async function requireImageGeneration(runtime: Pick<RuntimeSettings, 'timed'>): Promise<number | undefined> {
  const { settings, tableWaitMs } = await runtime.timed();
  if (settings.imageGeneration) return tableWaitMs;
  throw new ServiceUnavailableError(IMAGE_GENERATION_DISABLED, {
    code: 'image_generation_disabled',
    retryable: false,
  });
}
