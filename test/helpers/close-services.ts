/**
 * Ends a test's instances before its table goes: written-behind items flushed, and any snapshot read a
 * routed request started ahead of time let finish. Such a read, refused once the table has stopped, is
 * retried by the AWS SDK with backoff and would fail — and log — after the suite had ended.
 */
import type { Services } from '../../lib/instance';

export async function closeServices(...all: readonly Services[]): Promise<void> {
  for (const services of all) {
    await services.writeBehind.close();
    await services.registry.refresh().catch(() => undefined);
  }
}
