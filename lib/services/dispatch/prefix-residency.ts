/**
 * Whether a node still holds a conversation's prompt in its cache (issue 41, item 4: "conversation
 * affinity weighed against load"). An Ollama runner keeps one prompt per parallel slot and overwrites a
 * slot with whatever request takes it next (../../../docs/simulated-node.md, research: ollama-runtime), so
 * a conversation's prefix survives on the node that served its last turn only while fewer other requests
 * than it has slots have come since. This counts, per node:model, the requests this instance sent, and
 * per conversation where and at which count its last turn went; the scorer turns that into the share of
 * the earlier turns it can expect the node to skip. Bounded (oldest conversation out first). In memory,
 * per instance: another instance's turns in between are not counted, so across instances the figure is
 * an upper bound. Holds state, does no I/O.
 */

export interface PrefixResidency {
  /** Notes that the conversation's turn went to node:model (call once per request sent there). */
  served(key: string | undefined, nodeId: string, model: string): void;
  /**
   * The chance (0–1) that node:model still holds the conversation's prompt, for a node running `slots`
   * requests at once: 1 while fewer than `slots` other requests came since its last turn there, then
   * falling as `slots / (others + 1)`; 0 when its last turn went elsewhere or is unknown here.
   */
  likelihood(key: string, nodeId: string, model: string, slots: number): number;
}

interface Turn {
  readonly node: string;
  readonly at: number;
}

export function createPrefixResidency(maxConversations = 4000): PrefixResidency {
  const sent = new Map<string, number>();
  const turns = new Map<string, Turn>();
  return {
    served(key, nodeId, model) {
      const node = `${nodeId}\u0000${model}`;
      const count = (sent.get(node) ?? 0) + 1;
      sent.set(node, count);
      if (key === undefined) return;
      turns.delete(key);
      turns.set(key, { node, at: count });
      if (turns.size > maxConversations) {
        const oldest = turns.keys().next();
        if (oldest.done !== true) turns.delete(oldest.value);
      }
    },
    likelihood(key, nodeId, model, slots) {
      const turn = turns.get(key);
      const node = `${nodeId}\u0000${model}`;
      if (turn === undefined || turn.node !== node) return 0;
      const others = (sent.get(node) ?? 0) - turn.at;
      const width = Math.max(1, slots);
      return others < width ? 1 : width / (others + 1);
    },
  };
}
