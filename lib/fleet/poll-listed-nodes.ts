/** One poll pass over every listed node, all at once, saving each result through the registry. */
import type { ListedNode } from '../config';
import type { DescribeModels } from './describe-models';
import { pollNode } from './poller';
import type { FleetRegistry } from './registry';

export async function pollListedNodes(
  nodes: readonly ListedNode[],
  registry: Pick<FleetRegistry, 'snapshot' | 'record' | 'save'>,
  describe: DescribeModels,
  now: () => number = Date.now,
): Promise<void> {
  if (nodes.length === 0) return;
  // Loads this instance's view of the table once, so previous records come from memory.
  await registry.snapshot();
  await Promise.all(
    nodes.map(async (listed) => {
      const record = await pollNode(listed, await registry.record(listed.id), { now, describe });
      await registry.save(record);
    }),
  );
}
