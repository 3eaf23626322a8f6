/** Scheduled: polls the nodes listed in FLEET_NODES (ARCHITECTURE.md §8.1; see lib/features/poller/run-poller). */
import type { Context } from 'aws-lambda';
import { runPoller, type ScheduledEvent } from '../lib/features/poller/run-poller';
import { getFleetServices } from '../lib/fleet-instance';
import { configReady } from '../lib/services/platform/config';

export async function handler(
  event: ScheduledEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<void> {
  await configReady();
  await runPoller(getFleetServices(), event, context);
}
