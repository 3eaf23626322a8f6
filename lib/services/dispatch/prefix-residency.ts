/**
 * Whether a node still holds a conversation's prompt in its cache (issue 41, item 4: "conversation
 * affinity weighed against load"). An Ollama runner keeps one prompt per parallel slot
 * (../../../docs/simulated-node.md, research: ollama-runtime): a turn that comes back to its own slot
 * takes that slot again, and any other prompt takes a slot of its own, overwriting the one used longest
 * ago (with `OLLAMA_MULTIUSER_CACHE`; without it, a slot the newcomer shares the most with, which is no
 * better for the one overwritten). So a conversation's prefix survives on the node that served its last
 * turn while fewer *other conversations* than it has slots have been sent there since — the turns of a
 * conversation already held do not push it out, however many they are.
 *
 * This keeps, per node:model, the conversations this instance sent there in the order of their latest
 * turn (a request with no conversation counts as one of its own), and per conversation the node of its
 * latest turn; the scorer turns that into the share of the earlier turns it can expect the node to skip.
 * Bounded: the conversations per node:model (`perNode`, older ones count as pushed out) and the
 * conversations remembered (`maxConversations`, oldest out first). In memory, per instance: another
 * instance's turns in between are not counted, so across instances the figure is an upper bound. Holds
 * state, does no I/O.
 */

export interface PrefixResidency {
  /** Notes that the conversation's turn went to node:model (call once per request sent there). */
  served(key: string | undefined, nodeId: string, model: string): void;
  /**
   * The chance (0–1) that node:model still holds the conversation's prompt, for a node running `slots`
   * requests at once: 1 while fewer than `slots` other conversations were sent there since its last turn,
   * then falling as `slots / (others + 1)` (the node's own choice of slot is not known exactly); 0 when its
   * last turn went elsewhere. Undefined when this instance has not sent the conversation anywhere (another
   * instance served its turns, or it was forgotten): nothing is known here either way.
   */
  likelihood(key: string, nodeId: string, model: string, slots: number): number | undefined;
}

/** Conversations kept in order per node:model: beyond this many others, a prefix counts as pushed out. */
const PER_NODE = 64;

interface NodeLog {
  /** Requests sent: names the anonymous ones. */
  sent: number;
  /** Conversations in the order of their latest turn here, latest last. */
  readonly recent: string[];
}

const nodeKey = (nodeId: string, model: string) => `${nodeId}\u0000${model}`;

export function createPrefixResidency(maxConversations = 4000, perNode = PER_NODE): PrefixResidency {
  const logs = new Map<string, NodeLog>();
  /** Conversation → node:model of its latest turn. */
  const latest = new Map<string, string>();
  return {
    served(key, nodeId, model) {
      const node = nodeKey(nodeId, model);
      let log = logs.get(node);
      if (log === undefined) {
        log = { sent: 0, recent: [] };
        logs.set(node, log);
      }
      log.sent += 1;
      const entry = key ?? `\u0001${log.sent}`;
      const at = log.recent.lastIndexOf(entry);
      if (at >= 0) log.recent.splice(at, 1);
      log.recent.push(entry);
      if (log.recent.length > perNode) log.recent.shift();
      if (key === undefined) return;
      latest.delete(key);
      latest.set(key, node);
      if (latest.size > maxConversations) {
        const oldest = latest.keys().next();
        if (oldest.done !== true) latest.delete(oldest.value);
      }
    },
    likelihood(key, nodeId, model, slots) {
      const node = nodeKey(nodeId, model);
      const last = latest.get(key);
      if (last === undefined) return undefined;
      if (last !== node) return 0;
      const width = Math.max(1, slots);
      const recent = logs.get(node)?.recent;
      const at = recent === undefined ? -1 : recent.lastIndexOf(key);
      if (recent === undefined || at < 0) return width / (perNode + 1);
      const others = recent.length - 1 - at;
      return others < width ? 1 : width / (others + 1);
    },
  };
}
