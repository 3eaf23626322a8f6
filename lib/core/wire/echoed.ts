/**
 * Client input as an error message may repeat it (issue 19 item 6): an 800 KB model name was echoed
 * whole in its 404. Every message that quotes what a client sent cuts it here. Pure.
 */

/** Longest piece of client input an error message repeats. */
export const MAX_ECHO_CHARS = 120;

/** `text` cut to `max` characters (never inside a surrogate pair), saying how long it was. */
export function echoed(text: string, max = MAX_ECHO_CHARS): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length} characters)`;
}
