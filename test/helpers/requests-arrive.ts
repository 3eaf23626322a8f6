/**
 * Waiting on a simulated node instead of a clock: a promise that resolves once the node has received
 * `count` more requests that `match`, as they arrive (SimNode.onRequest). Callers bound it with a
 * generous failure timeout (`outcomeWithin`).
 */
import type { SimNode, SimRequestRecord } from '../../emulator/sim';

export function requestsArrive(
  node: Pick<SimNode, 'onRequest'>,
  match: (request: SimRequestRecord) => boolean,
  count: number,
): Promise<void> {
  if (count <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const stop = node.onRequest((request) => {
      if (!match(request)) return;
      seen += 1;
      if (seen < count) return;
      stop();
      resolve();
    });
  });
}

/** A poll of the node's model list, the request every poll pass makes. */
export const isTagsPoll = (request: SimRequestRecord): boolean => request.path === '/api/tags';
