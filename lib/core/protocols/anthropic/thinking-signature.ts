/**
 * The `signature` of a `thinking` block the router sends (protocols §6.3–6.4). Anthropic signs its
 * thinking so it can check echoed blocks; clients treat the value as opaque but keep only signed
 * thinking (the Vercel AI SDK drops a block without one and warns). Nodes do not sign, so the router
 * does: base64 of an HMAC-SHA256 of the thinking text under a fixed key — non-empty, the same for the
 * same text, and proving nothing. Echoed blocks are accepted whatever their signature
 * (`from-anthropic-messages.ts`). Streaming hashes the deltas as they pass. Pure.
 */
import { createHmac } from 'node:crypto';

const KEY = 'fleet-router thinking signature v1';

export interface ThinkingSigner {
  update(thinking: string): void;
  /** Once, at the block's end. */
  digest(): string;
}

/** Signs a block streamed in deltas: the same signature as `thinkingSignature` of their concatenation. */
export function thinkingSigner(): ThinkingSigner {
  const hmac = createHmac('sha256', KEY);
  return {
    update: (thinking) => void hmac.update(thinking, 'utf8'),
    digest: () => hmac.digest('base64'),
  };
}

export function thinkingSignature(thinking: string): string {
  return createHmac('sha256', KEY).update(thinking, 'utf8').digest('base64');
}
