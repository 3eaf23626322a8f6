/**
 * One Anthropic stream event → its SSE text (protocols §6.4, §9.2): `event: <type>\ndata: <json>\n\n`.
 * The SDK skips messages without an `event:` line, so every event is named, and named after its own
 * `type`. Pure.
 */
import { encodeSseEvent } from '../../stream/sse';
import type { AnthropicStreamEvent } from '../../wire/anthropic';

export function encodeAnthropicEvent(event: AnthropicStreamEvent): string {
  return encodeSseEvent(event.type, event);
}
