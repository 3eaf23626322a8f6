/**
 * Which conversation a request belongs to (issue: routing item 4; anchor §2.7): the key conversation
 * affinity pins a node to (lib/services/dispatch/affinity) and the context layers remember cleared tool
 * results by. Pure: the same request always gives the same key.
 */
import { hash } from 'node:crypto';

export interface ConversationKeyInput {
  /** The model as the client asked for it. */
  readonly model: string;
  /** The request's merged tags (./tags). */
  readonly tags: readonly string[];
  /** The system prompt's text, when there is one. */
  readonly systemPrompt?: string | undefined;
  /** The text of the first user message: with the model and system prompt it names the conversation. */
  readonly firstUserTurn?: string | undefined;
}

export const SESSION_TAG_PREFIX = 'session:';

/**
 * A `session:<id>` tag wins (the client named the conversation); else a hash of the model, the system
 * prompt and the first user turn — what every later turn of the same conversation repeats. No user
 * turn, no key: affinity does not apply. Hashing (sha256, 128 bits kept) keeps prompts out of the
 * table and the key short; the fields are JSON-encoded first so no two inputs run together.
 */
export function conversationKey(input: ConversationKeyInput): string | undefined {
  for (const tag of input.tags) {
    if (tag.startsWith(SESSION_TAG_PREFIX) && tag.length > SESSION_TAG_PREFIX.length) return tag;
  }
  if (input.firstUserTurn === undefined || input.firstUserTurn === '') return undefined;
  const material = JSON.stringify([input.model, input.systemPrompt ?? null, input.firstUserTurn]);
  return `conv:${hash('sha256', material, 'base64url').slice(0, 22)}`;
}
