/**
 * What every family's request translator (OpenAI chat, Responses, Anthropic Messages) does the same way
 * on its way to an Ollama chat request (ARCHITECTURE.md §3.8): the reasoning-effort scale onto Ollama's
 * `think`, options set only where the client gave a value (nothing silently defaulted), and the fields
 * a translator does not know forwarded as they came, and tool-call arguments (a JSON string on the wire)
 * as the object Ollama takes. Pure.
 */
import { BadRequestError } from '../errors';
import { parseJson } from '../wire/json';
import type { OllamaThink } from '../wire/ollama';

/** Every effort level the families use (OpenAI's `reasoning_effort`, Responses' and Anthropic's `effort`). */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

/** `none` → no thinking; `minimal`/`low` → low; `medium`; `high`/`xhigh` → high; `max`. */
export function effortToThink(effort: ReasoningEffort): OllamaThink {
  switch (effort) {
    case 'none':
      return false;
    case 'minimal':
    case 'low':
      return 'low';
    case 'medium':
      return 'medium';
    case 'high':
    case 'xhigh':
      return 'high';
    case 'max':
      return 'max';
  }
}

/** Copies into `options` each mapped value the client gave (absent and null are not values). */
export function setGivenOptions(options: Record<string, unknown>, mapped: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(mapped)) {
    if (value !== undefined && value !== null) options[key] = value;
  }
}

/** The request's fields other than the translated ones, forwarded at the top level as they came. */
export function forwardedFields(
  request: Readonly<Record<string, unknown>>,
  translated: ReadonlySet<string>,
): Record<string, unknown> {
  const forwarded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request)) {
    if (!translated.has(key) && value !== undefined) forwarded[key] = value;
  }
  return forwarded;
}

/** A tool call's `arguments` JSON string → the object Ollama takes; anything but an object is a 400 naming `field`. */
export function parseToolArguments(json: string, field: string): Record<string, unknown> {
  // Models stream an argument-less call as "" (and clients echo it back); Ollama wants an object.
  if (json.trim() === '') return {};
  const parsed = parseJson(json);
  if (!parsed.ok) throw new BadRequestError(`${field}: not valid JSON: ${parsed.error}`, field);
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadRequestError(`${field}: must be a JSON object`, field);
  }
  return { ...value };
}
