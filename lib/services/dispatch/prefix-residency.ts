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
 * latest turn. How many others a node takes before a prefix is gone depends on the node (its slots, how
 * its runner picks one: `OLLAMA_MULTIUSER_CACHE` keeps each user's turns, the default overwrites the slot
 * a newcomer shares most with), so it is learnt: every answer says how many prompt tokens the node
 * evaluated (Ollama's `prompt_eval_count`), and a turn sent back to its node evaluated either about the new
 * message (held) or the whole prompt (gone). The chance a prefix is held, by how many others came since,
 * starts from a prior (held while fewer others than slots, then `slots / (others + 1)`) and follows what
 * the node's answers showed — pooled, since a prefix the node kept past more others would have been kept
 * past fewer, and one it lost after fewer would have been lost after more: a turn found held at standing
 * s speaks for every standing up to s, one found gone for every standing from s on. A node's own answers
 * start from what the fleet's showed (by standing against each node's slots: nodes of one fleet are most
 * often set up alike), so a node learns from its peers' first answers before it has many of its own.
 * The router's token estimate is not the node's tokenizer: their ratio is learnt from prompts with nothing
 * to reuse, and a turn counts as held when it evaluated under that ratio × (the prompt less half its
 * prefix).
 * Bounded: the conversations per node:model (`perNode`, older ones count as pushed out) and the
 * conversations remembered (`maxConversations`, oldest out first). In memory, per instance: another
 * instance's turns in between are not counted, so across instances the figure is an upper bound. Holds
 * state, does no I/O.
 */

import { smoothed } from '../../core/smoothed';

export interface PromptOutcome {
  /** The router's estimate of the whole prompt, tokens. */
  readonly promptTokens: number;
  /** Of which the conversation's earlier turns, the part the node may have held; 0 for a first turn. */
  readonly prefixTokens: number;
  /** What the node says it evaluated (`prompt_eval_count`). */
  readonly evaluatedTokens: number;
  /** Other conversations sent to the node since the conversation's last turn there (`standing`). */
  readonly standing: number | undefined;
  /** Requests the node runs at once on the model: its cache's slots. */
  readonly slots: number;
}

export interface PrefixResidency {
  /** Notes that the conversation's turn went to node:model (call once per request sent there). */
  served(key: string | undefined, nodeId: string, model: string): void;
  /**
   * The chance (0–1) that node:model still holds the conversation's prompt, for a node running `slots`
   * requests at once: 0 when its last turn went elsewhere; else, by how many other conversations were
   * sent there since, what the node's answers showed (from a prior of 1 while fewer than `slots`, then
   * `slots / (others + 1)`). Undefined when this instance has not sent the conversation anywhere (another
   * instance served its turns, or it was forgotten): nothing is known here either way.
   */
  likelihood(key: string, nodeId: string, model: string, slots: number): number | undefined;
  /**
   * How many other conversations were sent to node:model since the conversation's last turn there;
   * undefined when its last turn went elsewhere or is not known. Read before `served` notes the new turn.
   */
  standing(key: string, nodeId: string, model: string): number | undefined;
  /** Learns from one answered request what the node's cache kept (see `PromptOutcome`). */
  observe(nodeId: string, model: string, outcome: PromptOutcome): void;
}

/** Conversations kept in order per node:model: beyond this many others, a prefix counts as pushed out. */
const PER_NODE = 64;
/** Standings learnt one by one; from the last on, together. */
const STANDINGS = 24;
/** Weight of the prior, in answers: two answers that disagree with it outweigh it. */
const PRIOR_WEIGHT = 2;
/** Answers a standing's figure keeps: older ones fade, so a node that changes is relearnt. */
const MEMORY = 32;
/** Weight of the newest prompt in the estimate-to-node token ratio. */
const RATIO_SMOOTHING = 0.2;
/** A prompt this short says little about the ratio (the template's own tokens dominate). */
const MIN_RATIO_TOKENS = 32;

/**
 * Turns sent back to their node, by standing: how many, and how many found their prefix held. Old
 * answers fade (`MEMORY` per standing), so a node that changes is relearnt.
 */
class Evidence {
  private readonly trials = new Float64Array(STANDINGS);
  private readonly held = new Float64Array(STANDINGS);

  add(standing: number, held: boolean): void {
    const at = Math.min(Math.max(0, standing), STANDINGS - 1);
    const trials = this.trials[at] ?? 0;
    if (trials >= MEMORY) {
      const keep = (MEMORY - 1) / trials;
      this.trials[at] = trials * keep;
      this.held[at] = (this.held[at] ?? 0) * keep;
    }
    this.trials[at] = (this.trials[at] ?? 0) + 1;
    if (held) this.held[at] = (this.held[at] ?? 0) + 1;
  }

  /**
   * The chance a prefix is held at `standing`, from `prior` (weighed as `PRIOR_WEIGHT` answers) and the
   * turns found held at that standing or more and found gone at that standing or fewer.
   */
  chance(standing: number, prior: number): number {
    const at = Math.min(Math.max(0, standing), STANDINGS - 1);
    let kept = 0;
    let lost = 0;
    for (let index = 0; index < STANDINGS; index += 1) {
      const held = this.held[index] ?? 0;
      if (index >= at) kept += held;
      if (index <= at) lost += (this.trials[index] ?? 0) - held;
    }
    return (kept + PRIOR_WEIGHT * prior) / (kept + lost + PRIOR_WEIGHT);
  }
}

/** The fleet's answers are kept by standing against the node's slots, from this many below them. */
const BELOW_SLOTS = 8;

interface NodeLog {
  /** Requests sent: names the anonymous ones. */
  sent: number;
  /** Conversations in the order of their latest turn here, latest last. */
  readonly recent: string[];
  /** This node's answers, by standing. */
  readonly evidence: Evidence;
  /** The node's tokens per token of the router's estimate; undefined before a prompt showed it. */
  ratio: number | undefined;
}

const nodeKey = (nodeId: string, model: string) => `${nodeId}\u0000${model}`;

/** The prior: held while fewer others than slots came since, then less and less. */
function priorHeld(others: number, slots: number): number {
  return others < slots ? 1 : slots / (others + 1);
}

/** The node's answer, judged: was the prefix held? Undefined when it says nothing of the prefix. */
function foundHeld(log: NodeLog, outcome: PromptOutcome): boolean | undefined {
  const { promptTokens, prefixTokens, evaluatedTokens, standing } = outcome;
  if (standing === undefined || prefixTokens <= 0) return undefined;
  return evaluatedTokens < (log.ratio ?? 1) * (promptTokens - prefixTokens / 2);
}

export function createPrefixResidency(maxConversations = 4000, perNode = PER_NODE): PrefixResidency {
  const logs = new Map<string, NodeLog>();
  /** Every node's answers, by standing against its slots (`BELOW_SLOTS` + standing − slots). */
  const fleet = new Evidence();
  /** Conversation → node:model of its latest turn. */
  const latest = new Map<string, string>();
  const logOf = (node: string): NodeLog => {
    let log = logs.get(node);
    if (log === undefined) {
      log = { sent: 0, recent: [], evidence: new Evidence(), ratio: undefined };
      logs.set(node, log);
    }
    return log;
  };
  const standingAt = (key: string, node: string): number | undefined => {
    if (latest.get(key) !== node) return undefined;
    const recent = logs.get(node)?.recent;
    const at = recent === undefined ? -1 : recent.lastIndexOf(key);
    return recent === undefined || at < 0 ? perNode : recent.length - 1 - at;
  };
  return {
    served(key, nodeId, model) {
      const node = nodeKey(nodeId, model);
      const log = logOf(node);
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
      const others = standingAt(key, node) ?? perNode;
      const width = Math.max(1, slots);
      const prior = fleet.chance(BELOW_SLOTS + others - width, priorHeld(others, width));
      const log = logs.get(node);
      return log === undefined ? prior : log.evidence.chance(others, prior);
    },
    standing: (key, nodeId, model) => standingAt(key, nodeKey(nodeId, model)),
    observe(nodeId, model, outcome) {
      const log = logOf(nodeKey(nodeId, model));
      if (outcome.prefixTokens <= 0) {
        if (outcome.promptTokens >= MIN_RATIO_TOKENS && outcome.evaluatedTokens > 0) {
          log.ratio = smoothed(log.ratio, outcome.evaluatedTokens / outcome.promptTokens, RATIO_SMOOTHING);
        }
        return;
      }
      const held = foundHeld(log, outcome);
      if (held === undefined || outcome.standing === undefined) return;
      log.evidence.add(outcome.standing, held);
      fleet.add(BELOW_SLOTS + outcome.standing - Math.max(1, outcome.slots), held);
    },
  };
}
