/**
 * The scheduled poll of the nodes listed in FLEET_NODES (ARCHITECTURE.md §8.1). EventBridge invokes it once a
 * minute, so in AWS one invocation polls every FLEET_POLL_INTERVAL_MS for a minute and a few seconds from its
 * start (`COVER_MS`): the next invocation, started within seconds of the next minute, overlaps it rather
 * than leaving a gap (serverless.yml lets two run at once and gives each the time to end). The emulator
 * invokes it once per interval (`source: fleet.emulator`) for a single pass. Each node is polled on its own
 * schedule (lib/services/registry/poll-listed-nodes): a pass never waits on a hung node beyond an interval.
 */
import type { Context } from 'aws-lambda';
import type { FleetConfig } from '../../services/platform/config';
import type { ListedNodePolls } from '../../services/registry/poll-listed-nodes';

export interface ScheduledEvent {
  readonly source?: string;
}

/** Time as the loop reads and waits for it; a test's fake clock. */
export interface PollerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface PollerDeps {
  readonly config: Pick<FleetConfig, 'nodes' | 'pollIntervalMs'>;
  readonly polls: ListedNodePolls;
  readonly clock?: PollerClock;
}

/** How long an invocation polls from its start: the schedule's minute plus 5 s of overlap with the next. */
export const COVER_MS = 65_000;

/** What an invocation keeps beyond a last pass and its wait, before its timeout: the polls under way end. */
const MARGIN_MS = 5000;

const realClock: PollerClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

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
  const clock = deps.clock ?? realClock;
  const started = clock.now();
  for (;;) {
    const passStarted = clock.now();
    await polls.pass(config.nodes, config.pollIntervalMs);
    const wait = Math.max(config.pollIntervalMs - (clock.now() - passStarted), 0);
    // The next pass is the next invocation's once it falls past this one's minute and overlap…
    if (clock.now() + wait - started >= COVER_MS) break;
    // …or when this one has no time left for it.
    if (context.getRemainingTimeInMillis() - wait < config.pollIntervalMs + MARGIN_MS) break;
    if (wait > 0) await clock.sleep(wait);
  }
  // A frozen container would hold a poll half done: let the last ones end (each within its deadlines).
  await polls.idle();
}
