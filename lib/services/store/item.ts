/**
 * The item convention of the one table (ARCHITECTURE.md §3.4) and its hand-written marshalling: key
 * attributes, the optional `gsi1` keys, the TTL attribute `expiresAt` (epoch seconds), the domain
 * document as JSON in `doc`, and any other string/number attributes (counters and the fields set beside
 * them). Only S and N are written, and `doc` as B when it is large, so two converters replace
 * util-dynamodb.
 *
 * A `doc` of `DEFLATE_FROM_CHARS` or more is stored deflated (raw deflate, level 1) as a binary: trace
 * pages (up to 256 KB of JSON) shrink about twentyfold, which is twenty times fewer write units in AWS,
 * and the AWS SDK, which escapes a string attribute one character at a time, has a twentieth of the bytes
 * to encode. Small documents (nodes, settings, locks) stay readable JSON strings. Reads take either.
 * `node:zlib` is loaded on the first large document, not at cold start (it costs a few ms to load).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** What the router writes: a document under a key. */
export interface DocItem {
  readonly pk: string;
  readonly sk: string;
  readonly gsi1pk?: string;
  readonly gsi1sk?: string;
  /** Epoch SECONDS after which the item is dead (DynamoDB TTL deletes it lazily; reads skip it). */
  readonly expiresAt?: number;
  /**
   * The domain document, serialised as JSON by its repository: text, or its UTF-8 bytes when it was
   * built as bytes (trace pages), which are stored without first becoming a string.
   */
  readonly doc: string | Uint8Array;
}

/** From this length on (characters of text, or bytes), a `doc` is stored deflated (see the top of this file). */
export const DEFLATE_FROM_CHARS = 8 * 1024;
/** A stored document never inflates past this: an item is at most 400 KB, and pages hold 256 KB of JSON. */
const MAX_INFLATED_BYTES = 16 * 1024 * 1024;

type Zlib = typeof import('node:zlib');
let zlib: Zlib | undefined;
const loadZlib = (): Zlib => {
  zlib ??= require('node:zlib') as Zlib;
  return zlib;
};

/** A document as its attribute value: a string, or deflated bytes when it is large. */
export function marshalDoc(doc: string | Uint8Array): AttributeValue {
  if (typeof doc === 'string') {
    return doc.length < DEFLATE_FROM_CHARS ? { S: doc } : { B: loadZlib().deflateRawSync(doc, { level: 1 }) };
  }
  if (doc.byteLength < DEFLATE_FROM_CHARS)
    return { S: Buffer.from(doc.buffer, doc.byteOffset, doc.byteLength).toString() };
  return { B: loadZlib().deflateRawSync(doc, { level: 1 }) };
}

/** A `doc` attribute back as its JSON; undefined when absent or not readable. */
function unmarshalDoc(value: AttributeValue | undefined): string | undefined {
  if (value?.S !== undefined) return value.S;
  if (value?.B === undefined) return undefined;
  try {
    return loadZlib().inflateRawSync(value.B, { maxOutputLength: MAX_INFLATED_BYTES }).toString('utf8');
  } catch {
    // Not written by the router (or damaged): the item reads as one without a document.
    return undefined;
  }
}

/** What a read returns: the convention's attributes, plus every other string or number attribute. */
export interface StoredItem {
  readonly pk: string;
  readonly sk: string;
  readonly gsi1pk?: string;
  readonly gsi1sk?: string;
  readonly expiresAt?: number;
  /** Absent on counter items, which hold only numeric attributes. */
  readonly doc?: string;
  /** Counters and the fields set beside them; never the attributes named above. */
  readonly attributes: Readonly<Record<string, string | number>>;
}

export type AttributeMap = Record<string, AttributeValue>;

/** Attributes with a fixed meaning; counters and `set` fields may not use these names. */
export const RESERVED_ATTRIBUTES: ReadonlySet<string> = new Set(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'expiresAt', 'doc']);

/** Epoch seconds stay below this until the year 5138; a larger value is almost surely milliseconds. */
const MAX_EPOCH_SECONDS = 1e11;

/** Refuses an `expiresAt` that DynamoDB's TTL would misread (milliseconds, fractions, NaN). */
export function checkExpiresAt(expiresAt: number): void {
  if (!Number.isInteger(expiresAt) || expiresAt < 0 || expiresAt >= MAX_EPOCH_SECONDS) {
    throw new Error(`expiresAt must be whole epoch seconds, got ${expiresAt}`);
  }
}

export function itemKey(pk: string, sk: string): AttributeMap {
  return { pk: { S: pk }, sk: { S: sk } };
}

/** A `DocItem` as DynamoDB attributes. */
export function marshalDocItem(item: DocItem): AttributeMap {
  if (item.expiresAt !== undefined) checkExpiresAt(item.expiresAt);
  return {
    ...itemKey(item.pk, item.sk),
    ...(item.gsi1pk === undefined ? {} : { gsi1pk: { S: item.gsi1pk } }),
    ...(item.gsi1sk === undefined ? {} : { gsi1sk: { S: item.gsi1sk } }),
    ...(item.expiresAt === undefined ? {} : { expiresAt: { N: String(item.expiresAt) } }),
    doc: marshalDoc(item.doc),
  };
}

/** A number or string as an attribute value. */
export function marshalScalar(value: string | number): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (!Number.isFinite(value)) throw new Error(`cannot store the number ${value}`);
  return { N: String(value) };
}

/** Reads S and N attributes (and `doc`) back; other types are never written by the router and are ignored. */
export function unmarshalItem(attributes: AttributeMap): StoredItem | undefined {
  const {
    pk: pkValue,
    sk: skValue,
    gsi1pk: gsi1pkValue,
    gsi1sk: gsi1skValue,
    doc: docValue,
    expiresAt: expiresAtValue,
  } = attributes;
  const pk = pkValue?.S;
  const sk = skValue?.S;
  if (pk === undefined || sk === undefined) return undefined;
  const rest: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (RESERVED_ATTRIBUTES.has(name)) continue;
    if (value.S !== undefined) rest[name] = value.S;
    else if (value.N !== undefined) rest[name] = Number(value.N);
  }
  const gsi1pk = gsi1pkValue?.S;
  const gsi1sk = gsi1skValue?.S;
  const doc = unmarshalDoc(docValue);
  const expiresAt = expiresAtValue?.N;
  return {
    pk,
    sk,
    ...(gsi1pk === undefined ? {} : { gsi1pk }),
    ...(gsi1sk === undefined ? {} : { gsi1sk }),
    ...(doc === undefined ? {} : { doc }),
    ...(expiresAt === undefined ? {} : { expiresAt: Number(expiresAt) }),
    attributes: rest,
  };
}

/** DynamoDB's TTL rule: an item is expired once `expiresAt` is below the current epoch second. */
export function isLive(item: Pick<StoredItem, 'expiresAt'>, nowSeconds: number): boolean {
  return item.expiresAt === undefined || item.expiresAt >= nowSeconds;
}

/** A stable string for a key, used to merge queued writes to the same item. */
export function keyId(pk: string, sk: string): string {
  return `${pk}\u0000${sk}`;
}
