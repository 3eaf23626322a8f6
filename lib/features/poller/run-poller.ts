/**
 * The scheduled poll of the nodes listed in FLEET_NODES (ARCHITECTURE.md §8.1). EventBridge invokes it once a
 * minute, so in AWS one invocation polls every FLEET_POLL_INTERVAL_MS until its time is nearly up; the
 * emulator invokes it once per interval (`source: fleet.emulator`) for a single pass. Each node is polled
 * on its own schedule (lib/services/registry/poll-listed-nodes): a pass never waits on a hung node beyond
 * an interval.
 */
import type { Context } from 'aws-lambda';
import type { FleetConfig } from '../../services/platform/config';
import type { ListedNodePolls } from '../../services/registry/poll-listed-nodes';

export interface ScheduledEvent {
  readonly source?: string;
}

export interface PollerDeps {
  readonly config: Pick<FleetConfig, 'nodes' | 'pollIntervalMs'>;
  readonly polls: ListedNodePolls;
}

/** What an invocation leaves before it ends: room for a last pass and its wait. */
const MARGIN_MS = 10_000;

export async function runPoller(
  deps: PollerDeps,
  event: ScheduledEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<void> {
  const { config, polls } = deps;
  // A pass waits for its polls at most one interval: a hung node is skipped next time, never waited for.
  if (event.source === 'fleet.emulator' || context === undefined) {
    await polls.pass(config.nodes, config.pollIntervalMs);
    return;
  }
  const remaining = () => context.getRemainingTimeInMillis();
  do {
    const started = Date.now();
    await polls.pass(config.nodes, config.pollIntervalMs);
    const wait = config.pollIntervalMs - (Date.now() - started);
    if (remaining() < Math.max(wait, 0) + MARGIN_MS) break;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  } while (remaining() > MARGIN_MS);
  // A frozen container would hold a poll half done: let the last ones end (each within its deadlines).
  await polls.idle();
}
