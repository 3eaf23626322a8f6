/**
 * The item convention of the one table (DESIGN decision 4) and its hand-written marshalling: key
 * attributes, the optional `gsi1` keys, the TTL attribute `expiresAt` (epoch seconds), the domain
 * document as a JSON string in `doc`, and any other string/number attributes (counters and the fields
 * set beside them). Only S and N are ever written, so two converters replace util-dynamodb.
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
  /** The domain document, serialised as JSON by its repository. */
  readonly doc: string;
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
    doc: { S: item.doc },
  };
}

/** A number or string as an attribute value. */
export function marshalScalar(value: string | number): AttributeValue {
  if (typeof value === 'string') return { S: value };
  if (!Number.isFinite(value)) throw new Error(`cannot store the number ${value}`);
  return { N: String(value) };
}

/** Reads S and N attributes back; other types are never written by the router and are ignored. */
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
  const doc = docValue?.S;
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
