/**
 * Scheduled: polls the nodes listed in FLEET_NODES (contract §3.1). EventBridge invokes it once a
 * minute, so in AWS one invocation polls every FLEET_POLL_INTERVAL_MS until its time is nearly up; the
 * emulator invokes it once per interval (`source: fleet.emulator`) for a single pass.
 */
import type { Context } from 'aws-lambda';
import { pollListedNodes } from '../lib/fleet/poll-listed-nodes';
import { getServices } from '../lib/services';

interface ScheduledEvent {
  readonly source?: string;
}

export async function handler(
  event: ScheduledEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<void> {
  const { config, registry, describe } = getServices();
  const singlePass = event.source === 'fleet.emulator' || context === undefined;
  const remaining = () => context?.getRemainingTimeInMillis() ?? 0;
  do {
    const started = Date.now();
    await pollListedNodes(config.nodes, registry, describe);
    if (singlePass) return;
    const wait = config.pollIntervalMs - (Date.now() - started);
    if (remaining() < Math.max(wait, 0) + 10_000) return;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  } while (remaining() > 10_000);
}
