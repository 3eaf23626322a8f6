/**
 * How a node's reply ended → Anthropic `stop_reason` and `stop_sequence` (protocols §2.3 → §6.3–6.4), the
 * same rule for whole replies and streams:
 * 1. any tool call → `tool_use` (Ollama keeps `stop` there; Anthropic clients run tools only on `tool_use`);
 * 2. `done_reason: "length"` → `max_tokens`;
 * 3. the text ends with one of the request's `stop_sequences` → `stop_sequence`, naming it (the first in
 *    the client's order that matches). Ollama does not say which stop string ended a reply and usually
 *    cuts it from the text, so this fires only for nodes that keep it; otherwise the reply is `end_turn`;
 * 4. everything else — `stop`, the no-generation `load`/`unload`, absent or unknown reasons → `end_turn`.
 * The reference detected stop sequences on whole replies only; a stream gives the same answer here.
 * Pure.
 */
import type { AnthropicStopReason } from '../../wire/anthropic';

export interface AnthropicStop {
  readonly stop_reason: AnthropicStopReason;
  readonly stop_sequence: string | null;
}

export interface AnthropicReplyEnd {
  readonly calledTools: boolean;
  /** The reply's text, or at least its last `longestStopSequence(stopSequences)` characters. */
  readonly text: string;
  readonly stopSequences: readonly string[];
}

/** @see protocols.md §6.3 (stop_reason), §2.3 (done_reason values) */
export function mapAnthropicStopReason(doneReason: string | null | undefined, end: AnthropicReplyEnd): AnthropicStop {
  if (end.calledTools) return { stop_reason: 'tool_use', stop_sequence: null };
  if (doneReason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  const matched = end.stopSequences.find((sequence) => sequence !== '' && end.text.endsWith(sequence));
  if (matched !== undefined) return { stop_reason: 'stop_sequence', stop_sequence: matched };
  return { stop_reason: 'end_turn', stop_sequence: null };
}

/** How much of a reply's tail `mapAnthropicStopReason` needs to see. */
export function longestStopSequence(stopSequences: readonly string[]): number {
  return stopSequences.reduce((longest, sequence) => Math.max(longest, sequence.length), 0);
}
