/**
 * The prompts a node is evaluating now (issue 41, item 4: "expected wait from … queue depth"): per
 * node:model, every request this instance sent whose first byte has not come back yet, with the prompt
 * tokens the scorer expected the node to evaluate. A node's runner evaluates the prompts it holds in the
 * same batches, a chunk at a time shared between them (docs/simulated-node.md; research: ollama-runtime),
 * so a newcomer's prompt is slowed by exactly the prompt tokens still ahead of it there — not by how many
 * requests the node runs: a node streaming answers to four clients evaluates a new prompt at nearly full
 * speed, one evaluating four long prompts at a fifth of it.
 *
 * What is left of each prompt is worked out as the node would run them: processor sharing at the node's
 * prefill rate, from each one's start (its send, after the model's expected load) to now. A prompt whose
 * first byte is late stays counted as done, never as a negative. A first byte ends an entry (`begin`'s
 * return), and so does a failed attempt. In memory, per instance: prompts sent by other instances are not
 * seen here (their requests still count in the queue depth). Holds state, does no I/O.
 */
import type { PrefillBacklog } from '../../core/scoring/load-signals';

export interface PrefillLedger extends PrefillBacklog {
  /**
   * Notes a prompt of `tokens` to evaluate sent to node:model, its evaluation starting at `startsAt`
   * (the send, plus the model's expected load). Returns what ends it: call at its first byte or its failure.
   */
  begin(nodeId: string, model: string, tokens: number, startsAt: number): () => void;
}

interface Prompt {
  readonly tokens: number;
  readonly startsAt: number;
}

/**
 * What is left of each prompt at `now`, all of them sharing `tokensPerMs` evenly from their starts (in
 * `startsAt` order): a prompt that has not started yet is left whole.
 */
export function leftAt(prompts: readonly Prompt[], tokensPerMs: number, now: number): number[] {
  const left = prompts.map((prompt) => prompt.tokens);
  if (!(tokensPerMs > 0)) return left;
  const running: number[] = [];
  let time = prompts[0]?.startsAt ?? now;
  const advance = (until: number) => {
    while (running.length > 0 && time < until) {
      const share = tokensPerMs / running.length;
      let smallest = Number.POSITIVE_INFINITY;
      for (const at of running) smallest = Math.min(smallest, left[at] ?? 0);
      const finishesIn = smallest / share;
      const step = Math.min(finishesIn, until - time);
      for (const at of running) left[at] = Math.max(0, (left[at] ?? 0) - step * share);
      time += step;
      for (let at = running.length - 1; at >= 0; at -= 1) {
        if ((left[running[at] ?? 0] ?? 0) <= 1e-9) running.splice(at, 1);
      }
    }
    time = Math.max(time, until);
  };
  prompts.forEach((prompt, at) => {
    if (prompt.startsAt > now) return;
    advance(prompt.startsAt);
    running.push(at);
  });
  advance(now);
  return left;
}

export function createPrefillLedger(): PrefillLedger {
  /** node:model → prompts in the order they start. */
  const byKey = new Map<string, Prompt[]>();
  const keyOf = (nodeId: string, model: string) => `${nodeId}\u0000${model}`;
  return {
    begin(nodeId, model, tokens, startsAt) {
      if (!(tokens > 0)) return () => {};
      const key = keyOf(nodeId, model);
      const prompt: Prompt = { tokens, startsAt };
      let prompts = byKey.get(key);
      if (prompts === undefined) {
        prompts = [];
        byKey.set(key, prompts);
      }
      let at = prompts.length;
      while (at > 0 && (prompts[at - 1]?.startsAt ?? 0) > startsAt) at -= 1;
      prompts.splice(at, 0, prompt);
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        const list = byKey.get(key);
        const index = list?.indexOf(prompt) ?? -1;
        if (list === undefined || index < 0) return;
        list.splice(index, 1);
        if (list.length === 0) byKey.delete(key);
      };
    },
    ahead(nodeId, model, tokens, prefillTps, now) {
      const prompts = byKey.get(keyOf(nodeId, model));
      if (prompts === undefined || !(tokens > 0)) return 0;
      let ahead = 0;
      for (const left of leftAt(prompts, prefillTps / 1000, now)) ahead += Math.min(left, tokens);
      return ahead;
    },
  };
}
