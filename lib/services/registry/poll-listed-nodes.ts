/**
 * Polling the nodes listed in FLEET_NODES (ARCHITECTURE.md §8.1), each on its own schedule: a pass starts a
 * poll of every node whose previous poll has ended and skips one still under way, so one slow or hung
 * node never delays the polling of another (issue 19 item 1). A pass waits for the polls it started at
 * most `waitMs`; whatever is still running then carries on and saves its result when it ends. Every call
 * to a node is bounded by its own deadline, so a poll always ends. The polls under way are this
 * instance's (a container's), kept in the object `createListedNodePolls` returns.
 */

import type { DescribeModels } from '../node-client/describe-models';
import type { ListedNode } from '../platform/config';
import { pollNode } from './poller';
import type { FleetRegistry } from './registry';

export interface ListedNodePollsOptions {
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'record' | 'save'>;
  readonly describe: DescribeModels;
  readonly now?: () => number;
  /** Budget for each call to a node. */
  readonly timeoutMs?: number;
  readonly log?: (line: string) => void;
}

export interface PollPass {
  /** Nodes whose poll this pass started. */
  readonly started: readonly string[];
  /** Nodes skipped because their previous poll is still under way. */
  readonly skipped: readonly string[];
  /** Polls this pass started that had not ended when it stopped waiting. */
  readonly unfinished: readonly string[];
}

export interface ListedNodePolls {
  /** One pass over `nodes` (see the header); waits for its polls at most `waitMs`. */
  pass(nodes: readonly ListedNode[], waitMs: number): Promise<PollPass>;
  /** Resolves when every poll under way has ended (each is bounded by its deadlines). */
  idle(): Promise<void>;
}

export function createListedNodePolls(options: ListedNodePollsOptions): ListedNodePolls {
  const { registry, describe } = options;
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const underWay = new Map<string, Promise<void>>();

  const poll = (listed: ListedNode): Promise<void> => {
    const running = (async () => {
      const pollOptions = {
        now,
        describe,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      };
      const record = await pollNode(listed, await registry.record(listed.id), pollOptions);
      await registry.save(record);
    })()
      .catch((error: unknown) => log(`poll of node ${listed.id} could not be saved: ${String(error)}`))
      .finally(() => underWay.delete(listed.id));
    underWay.set(listed.id, running);
    return running;
  };

  return {
    async pass(nodes, waitMs) {
      if (nodes.length === 0) return { started: [], skipped: [], unfinished: [] };
      // Loads this instance's view of the table once, so previous records come from memory.
      await registry.snapshot();
      const skipped = nodes.filter((listed) => underWay.has(listed.id)).map((listed) => listed.id);
      const startedNodes = nodes.filter((listed) => !underWay.has(listed.id));
      const ended = new Set<string>();
      const polls = startedNodes.map((listed) => poll(listed).then(() => ended.add(listed.id)));
      await waitAtMost(Promise.all(polls), waitMs);
      const started = startedNodes.map((listed) => listed.id);
      return { started, skipped, unfinished: started.filter((id) => !ended.has(id)) };
    },
    async idle() {
      while (underWay.size > 0) await Promise.all(underWay.values());
    },
  };
}

/** Resolves when `work` does or after `ms`, whichever is first; the timer never outlives the wait. */
async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
