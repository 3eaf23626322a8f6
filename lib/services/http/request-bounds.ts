/**
 * The bounds of a JSON request body, checked at the edge right after parsing (issue 19 item 6; README):
 * how deep it nests, and how long and clean the names are that become table keys, trace fields and
 * headers. A 5,000-deep value would otherwise overflow the stack of whatever walks it recursively later
 * (zod, `JSON.stringify` of the body forwarded to a node) after a node was chosen and blamed; an 800 KB
 * model name would become a trace the table refuses, a lock key over the key limit and a header no
 * client reads. Each check is one pass without recursion: it runs on every request. Pure.
 */
import { BadRequestError } from '../../core/errors';
import { echoed } from '../../core/wire/echoed';

/** Deepest nesting of objects and arrays a body may have: tool schemas, the deepest real bodies, nest ~40. */
export const MAX_JSON_DEPTH = 128;
/** Longest model name, in UTF-8 bytes (Ollama's own name parts add up to under 600). */
export const MAX_NAME_BYTES = 512;
/** Longest id (`node_id`), in UTF-8 bytes. */
export const MAX_ID_BYTES = 256;
/** Most entries `fallback_models` may list: each is a routing attempt, and an error names them all. */
export const MAX_FALLBACK_MODELS = 32;

/** Top-level fields that name a model, each bounded to `MAX_NAME_BYTES`. */
const NAME_FIELDS = ['model', 'name'] as const;

/** Throws a 400 naming the field when the parsed body breaks a bound; `textLength` skips the walk when it cannot. */
export function checkRequestBounds(body: unknown, textLength: number): void {
  // Each level takes two characters at least: a short body cannot be too deep.
  if (textLength > 2 * MAX_JSON_DEPTH && nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    const path = pathTooDeep(body, MAX_JSON_DEPTH) ?? 'body';
    throw new BadRequestError(`${path}: nested deeper than ${MAX_JSON_DEPTH} levels`, path);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  for (const field of NAME_FIELDS) checkName(Reflect.get(body, field), field, MAX_NAME_BYTES);
  const fallbacks: unknown = Reflect.get(body, 'fallback_models');
  if (Array.isArray(fallbacks)) {
    if (fallbacks.length > MAX_FALLBACK_MODELS) {
      throw new BadRequestError(`fallback_models: more than ${MAX_FALLBACK_MODELS} entries`, 'fallback_models');
    }
    for (let index = 0; index < fallbacks.length; index += 1) {
      checkName(fallbacks[index], `fallback_models.${index}`, MAX_NAME_BYTES);
    }
  }
  checkName(Reflect.get(body, 'node_id'), 'node_id', MAX_ID_BYTES);
}

/** A name or id: at most `maxBytes` of UTF-8, no control characters, and valid Unicode throughout. */
export function checkName(value: unknown, field: string, maxBytes: number): void {
  if (typeof value !== 'string') return;
  // A UTF-16 unit is at most 3 bytes of UTF-8: most names need no byte count.
  if (value.length * 3 > maxBytes && Buffer.byteLength(value) > maxBytes) {
    throw new BadRequestError(`${field}: longer than ${maxBytes} bytes (${Buffer.byteLength(value)})`, field);
  }
  const bad = firstInvalidCharacter(value);
  if (bad !== undefined) throw new BadRequestError(`${field}: ${bad}`, field);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Why `value` cannot be a name, or undefined. U+FFFD is what invalid UTF-8 in the body decoded to. */
function firstInvalidCharacter(value: string): string | undefined {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
      return `contains the control character U+${code.toString(16).toUpperCase().padStart(4, '0')} at ${index}`;
    }
    if (code === 0xfffd) return `is not valid UTF-8 (U+FFFD at ${index})`;
    if (isHighSurrogate(code) && isLowSurrogate(value.charCodeAt(index + 1))) index += 1;
    else if (isHighSurrogate(code) || isLowSurrogate(code)) return `contains an unpaired surrogate at ${index}`;
  }
  return undefined;
}

/**
 * Whether `value` nests objects and arrays deeper than `limit`: the check every request pays for, so it
 * allocates only a stack of the containers still to visit (about 40 % cheaper than `pathTooDeep`, which
 * runs only once this said yes). An explicit stack, not recursion: the point is to survive what
 * recursion cannot.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const container = pending.pop() as object;
    const depth = depths.pop() as number;
    if (Array.isArray(container)) {
      for (let index = 0; index < container.length; index += 1) {
        const child: unknown = container[index];
        if (typeof child !== 'object' || child === null) continue;
        if (depth >= limit) return true;
        pending.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in container) {
      const child: unknown = Reflect.get(container, key);
      if (typeof child !== 'object' || child === null) continue;
      if (depth >= limit) return true;
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * The dotted path (`options.a.0.b`) of the first object or array nested deeper than `limit`, or
 * undefined; without recursion, as `nestsDeeperThan`.
 */
export function pathTooDeep(value: unknown, limit: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const containers: object[] = [value];
  const keys: (string[] | undefined)[] = [Array.isArray(value) ? undefined : Object.keys(value)];
  const next: number[] = [0];
  while (containers.length > 0) {
    const top = containers.length - 1;
    const container = containers[top] as object;
    const names = keys[top];
    const index = next[top] as number;
    const size = names === undefined ? (container as unknown[]).length : names.length;
    if (index >= size) {
      containers.pop();
      keys.pop();
      next.pop();
      continue;
    }
    next[top] = index + 1;
    const child: unknown =
      names === undefined ? (container as unknown[])[index] : Reflect.get(container, names[index] as string);
    if (typeof child !== 'object' || child === null) continue;
    if (containers.length >= limit) return pathOf(keys, next);
    containers.push(child);
    keys.push(Array.isArray(child) ? undefined : Object.keys(child));
    next.push(0);
  }
  return undefined;
}

/** The path to the child each frame is at (its index was already advanced), each segment bounded. */
function pathOf(keys: readonly (string[] | undefined)[], next: readonly number[]): string {
  const segments: string[] = [];
  for (let frame = 0; frame < next.length; frame += 1) {
    const at = (next[frame] as number) - 1;
    const names = keys[frame];
    segments.push(names === undefined ? String(at) : echoed(names[at] as string, 32));
  }
  return echoed(segments.join('.'), 400);
}
