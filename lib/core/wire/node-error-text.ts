/**
 * The words of a node's error reply, whoever wrote it: Ollama's `{"error": "..."}`, the sidecars'
 * FastAPI `{"detail": "..."}` (validation errors as `{"detail": [{"msg": ...}]}`), the OpenAI envelope
 * `{"error": {"message": ...}}`; otherwise the reply itself — plain text from a proxy in between, JSON in
 * another shape — kept short, and only when it is text. Undefined for an empty or binary body. Bounded
 * in length either way. Pure.
 */
import { parseJson } from './json';

const MAX_TEXT = 300;
/** A node's own message is passed on, but never at any length (a client could make a node echo megabytes). */
const MAX_MESSAGE = 1000;

function messageOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (Array.isArray(value)) {
    const messages = value.map((item) =>
      messageOf(typeof item === 'object' && item !== null ? Reflect.get(item, 'msg') : item),
    );
    const present = messages.filter((message) => message !== undefined);
    return present.length > 0 ? present.join('; ') : undefined;
  }
  if (typeof value === 'object' && value !== null) return messageOf(Reflect.get(value, 'message'));
  return undefined;
}

export function nodeErrorText(body: Uint8Array): string | undefined {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8').trim();
  if (text === '') return undefined;
  const json = parseJson(text);
  if (json.ok && typeof json.value === 'object' && json.value !== null) {
    const found = messageOf(Reflect.get(json.value, 'error')) ?? messageOf(Reflect.get(json.value, 'detail'));
    if (found !== undefined) return found.length > MAX_MESSAGE ? `${found.slice(0, MAX_MESSAGE)}…` : found;
  }
  // Plain text, or JSON in no shape we know: shown as it is, short, and only when it is text.
  return /^[\x20-\x7e\s]*$/.test(text) ? text.slice(0, MAX_TEXT) : undefined;
}
