/**
 * The scheduled poller's invocation (lib/features/poller/run-poller): one pass when the emulator or a
 * test invokes it; in AWS, passes that cover the minute until the next scheduled invocation without a gap,
 * each invocation ending within the timeout serverless.yml gives it. The polls are a recording stand-in on
 * a fake clock: what is polled and how is lib/services/registry/poll-listed-nodes' (tested there).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { COVER_MS, type PollerClock, runPoller } from '../../../../lib/features/poller/run-poller';
import type { ListedNode } from '../../../../lib/services/platform/config';
import type { ListedNodePolls, PollPass } from '../../../../lib/services/registry/poll-listed-nodes';

const NODES: readonly ListedNode[] = [{ id: 'gpu1', url: 'http://127.0.0.1:1' }];

interface RecordedPolls extends ListedNodePolls {
  readonly passes: { nodes: readonly ListedNode[]; waitMs: number }[];
  idles: number;
}

function recordingPolls(): RecordedPolls {
  const polls: RecordedPolls = {
    passes: [],
    idles: 0,
    async pass(nodes, waitMs): Promise<PollPass> {
      polls.passes.push({ nodes, waitMs });
      return { started: nodes.map((node) => node.id), skipped: [], unfinished: [] };
    },
    async idle() {
      polls.idles += 1;
    },
  };
  return polls;
}

describe('runPoller', () => {
  it("makes one pass, waiting at most an interval, for the emulator's tick", async () => {
    const polls = recordingPolls();
    const context = { getRemainingTimeInMillis: () => 60_000 };

    await runPoller({ config: { nodes: NODES, pollIntervalMs: 5000 }, polls }, { source: 'fleet.emulator' }, context);

    expect(polls.passes).toEqual([{ nodes: NODES, waitMs: 5000 }]);
  });

  it('makes one pass when invoked without a Lambda context', async () => {
    const polls = recordingPolls();

    await runPoller({ config: { nodes: NODES, pollIntervalMs: 5000 }, polls }, {});

    expect(polls.passes).toHaveLength(1);
  });

  it('stops before its timeout when the timeout is shorter than its minute', async () => {
    const polls = recordingPolls();
    const clock = fakeClock(0);
    const context = { getRemainingTimeInMillis: () => 13_000 - clock.now() };

    await runPoller({ config: { nodes: NODES, pollIntervalMs: 1000 }, polls, clock }, {}, context);

    // Passes at 0…7 s: the one at 8 s would leave less than an interval and the 5 s margin.
    expect(polls.passes).toHaveLength(8);
    expect(polls.idles).toBe(1);
    expect(clock.now()).toBeLessThan(13_000);
  });
});

/** A clock that moves only when the loop waits or a pass takes time. */
function fakeClock(start: number): PollerClock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

const pollerTimeoutMs = (): number => {
  const file = parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'serverless.yml'), 'utf8')) as {
    functions: { poller: { timeout: number; events: { schedule: string }[] } };
  };
  expect(file.functions.poller.events[0]?.schedule).toBe('rate(1 minute)');
  return file.functions.poller.timeout * 1000;
};

describe('runPoller on its schedule', () => {
  // EventBridge starts each invocation within a few seconds of its minute; passes take up to an interval.
  const JITTER_MS = [0, 2500, 400, 3000, 0, 1700, 2900, 100];

  it.each([500, 2000, 10_000, 30_000])(
    'leaves no gap longer than the %d ms interval between passes, across invocations, within the timeout',
    async (intervalMs) => {
      const timeoutMs = pollerTimeoutMs();
      const passStarts: number[] = [];
      for (const [minute, jitter] of JITTER_MS.entries()) {
        const start = minute * 60_000 + jitter;
        const clock = fakeClock(start);
        const polls: ListedNodePolls = {
          async pass() {
            passStarts.push(clock.now());
            // A pass waits for its slowest poll, at most an interval.
            clock.advance(((passStarts.length * 7919) % 10) * (intervalMs / 10));
            return { started: [], skipped: [], unfinished: [] };
          },
          async idle() {
            clock.advance(1000);
          },
        };
        const context = { getRemainingTimeInMillis: () => start + timeoutMs - clock.now() };

        await runPoller({ config: { nodes: NODES, pollIntervalMs: intervalMs }, polls, clock }, {}, context);

        expect(clock.now() - start).toBeLessThanOrEqual(timeoutMs);
      }
      passStarts.sort((a, b) => a - b);
      const covered = passStarts.filter((at) => at < (JITTER_MS.length - 1) * 60_000);
      const gaps = covered.slice(1).map((at, index) => at - (covered[index] ?? at));
      expect(Math.max(...gaps)).toBeLessThanOrEqual(intervalMs);
    },
  );

  it('polls a minute and the overlap, then ends', async () => {
    const clock = fakeClock(0);
    const polls = recordingPolls();

    await runPoller(
      { config: { nodes: NODES, pollIntervalMs: 2000 }, polls, clock },
      {},
      {
        getRemainingTimeInMillis: () => pollerTimeoutMs() - clock.now(),
      },
    );

    // Passes at 0, 2, …, 64 s: the one at 66 s is the next invocation's.
    expect(polls.passes).toHaveLength(33);
    expect(clock.now()).toBe(64_000);
    expect(clock.now()).toBeLessThan(COVER_MS);
  });
});
