/**
 * The text of the routing bench's requests (issue 41 item 3): chat messages built to a planned prompt
 * length, counted as the simulated node counts them (⌈chars/4⌉ of every message's content, joined by
 * newlines). Every conversation opens with the same short system prompt and then text of its own, drawn
 * from a seed per conversation and turn, so two conversations share no prefix beyond the system prompt.
 * A continuation is the conversation's messages so far, the assistant's answer exactly as it streamed, and
 * a new question. Every question ends by asking for the planned answer length ("answer in N words"),
 * which the simulated model honours exactly.
 */
import { childSeed, seededRandom } from './prng';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export const SYSTEM_PROMPT = 'You are a helpful assistant. Answer plainly.';

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vu', 'dor', 'shi', 'pel', 'no', 'qua', 'zet', 'bri', 'fo', 'gan'];

/** Characters of the prompt the node renders from `messages`: contents joined by newlines. */
export function promptChars(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + message.content.length, Math.max(0, messages.length - 1));
}

/** Tokens the node counts for `messages`. */
export function promptTokens(messages: readonly ChatMessage[]): number {
  return Math.max(1, Math.ceil(promptChars(messages) / 4));
}

/** `chars` characters of seeded lowercase words (no digits, so only the closing ask names a length). */
export function fillerText(seed: number, chars: number): string {
  const random = seededRandom(seed);
  const words: string[] = [];
  let length = 0;
  while (length < chars) {
    const syllables = 1 + Math.floor(random() * 3);
    let word = '';
    for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)] ?? 'ka';
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ').slice(0, Math.max(0, chars));
}

export interface Turn {
  readonly conversation: number;
  readonly turn: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
}

/**
 * The messages of `turn`: `history` (the conversation so far, answers included; empty for a new one) and a
 * question filled so the whole prompt is `promptTokens` long, or as short as a question can be when the
 * history is already that long.
 */
export function turnMessages(history: readonly ChatMessage[], turn: Turn, seed: number): ChatMessage[] {
  const opening = history.length === 0 ? [{ role: 'system', content: SYSTEM_PROMPT } as const] : history;
  const head = `Conversation ${turn.conversation}, turn ${turn.turn}: `;
  const ask = ` Please answer in ${turn.outputTokens} words.`;
  const used = promptChars(opening) + 1 + head.length + ask.length;
  const fill = Math.max(0, turn.promptTokens * 4 - used);
  const text = fillerText(childSeed(seed, turn.conversation * 1009 + turn.turn), fill);
  return [...opening, { role: 'user', content: `${head}${text}${ask}` }];
}
