/**
 * The scheduled poller's invocation (lib/features/poller/run-poller): one pass when the emulator or a
 * test invokes it, passes until the invocation's time is nearly up in AWS. The polls are a recording
 * stand-in: what is polled and how is lib/services/registry/poll-listed-nodes' (tested there).
 */
import { describe, expect, it } from '@jest/globals';
import { runPoller } from '../../../../lib/features/poller/run-poller';
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

  it("passes until the invocation's time is nearly up, then lets the polls under way end", async () => {
    const polls = recordingPolls();
    // 12 s left after the first pass, 11 s after the second, 10 s (the margin) after the third.
    const context = { getRemainingTimeInMillis: () => 13_000 - 1000 * polls.passes.length };

    await runPoller({ config: { nodes: NODES, pollIntervalMs: 1 }, polls }, {}, context);

    expect(polls.passes).toHaveLength(3);
    expect(polls.idles).toBe(1);
  });
});
