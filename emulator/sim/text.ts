/**
 * What a simulated model "says": deterministic tokens derived from the prompt (an echo sentence filled
 * out with filler words to its natural length), thinking tokens, JSON output for `format`, and tool-call
 * arguments built from a tool's JSON Schema. Pure functions, so tests can predict every answer.
 *
 * Like a real model, the answer has a length of its own, which `num_predict` can only cut: 12 tokens,
 * or as many as the prompt asks for in words ("answer in 400 words"), up to 100,000 — how a test or a
 * demo gets a long stream.
 */
import { type Fields, fieldsOf, isRecord } from './fields';
import { fnv1a32 } from './hash';

/** Tokens a reply has when it ends on its own (`done_reason: "stop"`) and the prompt asks no length. */
export const NATURAL_REPLY_TOKENS = 12;

/** The longest answer a prompt can ask for. */
export const MAX_ASKED_TOKENS = 100_000;

const ASKED_LENGTH = /\b(\d{1,6})\s+words\b/i;

/** How long the answer to `prompt` is when nothing stops it: the words it asks for, else 12 tokens. */
export function naturalReplyLength(prompt: string): number {
  const asked = ASKED_LENGTH.exec(prompt);
  const words = asked === null ? Number.NaN : Number(asked[1]);
  return words >= 1 && words <= MAX_ASKED_TOKENS ? words : NATURAL_REPLY_TOKENS;
}

const FILLER = [
  'the',
  'fleet',
  'routes',
  'each',
  'request',
  'to',
  'a',
  'ready',
  'node',
  'and',
  'tokens',
  'stream',
  'back',
  'quickly',
];

const ECHO_WORDS = 8;

/** A rough token count for a prompt (about four characters a token, as for English text). */
export function countPromptTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function asTokens(words: readonly string[]): string[] {
  return words.map((word, i) => (i === 0 ? word : ` ${word}`));
}

export interface ReplyShape {
  /** How many tokens to produce. */
  readonly count: number;
  /** The reply ends naturally (adds a full stop to the last token). */
  readonly natural: boolean;
  /** Images attached to the prompt that the model can see. */
  readonly images: number;
}

/** `Echo: <first prompt words> <filler…>.` cut or extended to `shape.count` tokens. */
export function replyTokens(prompt: string, shape: ReplyShape): string[] {
  const marker = shape.images > 0 ? [`[${shape.images} image${shape.images === 1 ? '' : 's'}]`] : [];
  const base = [
    'Echo:',
    ...marker,
    ...prompt
      .split(/\s+/)
      .filter((w) => w !== '')
      .slice(0, ECHO_WORDS),
  ];
  const seed = fnv1a32(prompt);
  const words: string[] = [];
  for (let i = 0; i < shape.count; i++) {
    words.push(base[i] ?? FILLER[(seed + i) % FILLER.length] ?? 'token');
  }
  const tokens = asTokens(words);
  if (shape.natural && tokens.length > 0) tokens[tokens.length - 1] = `${tokens[tokens.length - 1]}.`;
  return tokens;
}

/** The reasoning a thinking model streams before its answer. */
export function thinkingTokens(prompt: string): string[] {
  const quoted = prompt
    .split(/\s+/)
    .filter((w) => w !== '')
    .slice(0, 4)
    .join(' ');
  return asTokens(['The', 'user', 'wrote', `"${quoted}".`, 'I', 'will', 'echo', 'it', 'back.']);
}

/** Token ids for `/api/generate`'s `context` (stable per token text). */
export function tokenIds(tokens: readonly string[]): number[] {
  return tokens.map((token) => fnv1a32(token) % 128_000);
}

/** Splits text into ~4-character tokens (how structured output streams). */
export function chunkText(text: string, size = 4): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

/** The JSON text a model answers with under `format` (`"json"` or a JSON Schema). */
export function formattedReply(format: unknown, prompt: string): string {
  const echo = prompt
    .split(/\s+/)
    .filter((w) => w !== '')
    .slice(0, ECHO_WORDS)
    .join(' ');
  const schema = schemaOf(format);
  if (schema !== undefined) return JSON.stringify(sampleValue(schema, echo, 0));
  return JSON.stringify({ echo });
}

/** The argument a tool call gets for string parameters: the prompt's last word that is not the tool. */
export function argumentHint(prompt: string, toolName: string): string {
  const words = prompt.match(/[\p{L}\p{N}_.-]+/gu) ?? [];
  const candidates = words.filter((w) => w.toLowerCase() !== toolName.toLowerCase());
  return (candidates[candidates.length - 1] ?? 'value').replace(/[.]+$/, '');
}

/**
 * Tool-call arguments: the properties of the tool's `parameters` schema filled with a sample value —
 * the `required` ones when the schema lists them (a model leaves out optional arguments it has no use
 * for: Codex's `exec_command` gets a `cmd`, not a `shell` or `workdir` named after the prompt), else all.
 */
export function toolArguments(parameters: unknown, hint: string): Record<string, unknown> {
  const value = sampleValue(schemaOf(parameters) ?? { type: 'object' }, hint, 0);
  return isRecord(value) ? { ...value } : {};
}

type Schema = Fields<'type' | 'enum' | 'properties' | 'items' | 'required'>;

function schemaOf(value: unknown): Schema | undefined {
  return fieldsOf<'type' | 'enum' | 'properties' | 'items' | 'required'>(value);
}

function schemaType(schema: Schema): string {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((t): t is string => typeof t === 'string' && t !== 'null') ?? 'string';
  return isRecord(schema.properties) ? 'object' : 'string';
}

function sampleValue(schema: Schema, hint: string, depth: number): unknown {
  const choices = schema.enum;
  if (Array.isArray(choices) && choices.length > 0) return choices[0];
  switch (schemaType(schema)) {
    case 'integer':
      return 3;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    case 'array':
      return depth > 3 ? [] : [sampleValue(schemaOf(schema.items) ?? {}, hint, depth + 1)];
    case 'object':
      return depth > 3 ? {} : sampleObject(schema, hint, depth);
    default:
      return hint;
  }
}

function sampleObject(schema: Schema, hint: string, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(schema.properties)) return out;
  const required = Array.isArray(schema.required) ? new Set(schema.required) : undefined;
  for (const [key, child] of Object.entries(schema.properties)) {
    if (required !== undefined && !required.has(key)) continue;
    out[key] = sampleValue(schemaOf(child) ?? {}, hint, depth + 1);
  }
  return out;
}
