/**
 * A Responses stream event → its SSE frame, `event: <type>\ndata: <json>\n\n` (protocols §4.3, §9.2):
 * the event name is the payload's `type`, as openai-node and Codex expect. Pure.
 */
import { encodeSseEvent } from '../../stream/sse';
import type { ResponsesStreamEvent } from './responses-stream-event';

export function encodeResponsesEvent(event: ResponsesStreamEvent): string {
  return encodeSseEvent(event.type, event);
}
