/**
 * The conditional writes behind a lease in the one table (ARCHITECTURE.md §3.6: a model pull's lock):
 * a lease item is a lock item (`doc` names its owner) that also carries `leaseUntilMs`, the epoch
 * millisecond it lapses at unless renewed. `expiresAt` stays the whole-second TTL DynamoDB reaps by
 * (rounded up, so the item is never reaped while the lease runs), but whether a lease is free is decided
 * on `leaseUntilMs`: a whole-second comparison would let a dead owner's lease outlive its end by up to
 * two seconds. Taking: absent, or lapsed. Renewing: only while the item is still exactly the owner's
 * (`doc`), never recreating one that was released or reaped. Pure.
 */
import type { PutItemCommandInput, UpdateItemCommandInput } from '@aws-sdk/client-dynamodb';
import { checkExpiresAt, type DocItem, itemKey, marshalDoc, marshalDocItem } from './item';

/** The attribute holding the lease's end, epoch ms. */
export const LEASE_UNTIL_ATTRIBUTE = 'leaseUntilMs';

/** The whole-second TTL of a lease that lapses at `untilMs`: never before it. */
export function leaseExpiresAt(untilMs: number): number {
  return Math.ceil(untilMs / 1000);
}

function checkUntil(untilMs: number): void {
  if (!Number.isSafeInteger(untilMs) || untilMs < 0)
    throw new Error(`a lease must end at whole epoch ms, got ${untilMs}`);
}

/**
 * Puts `item` as a lease until `untilMs`, unless a live lease holds the key at `nowMs`. An item without
 * `leaseUntilMs` (a plain lock) counts as free once its `expiresAt` second has passed.
 */
export function takeLeaseCommand(
  tableName: string,
  item: Omit<DocItem, 'expiresAt'>,
  untilMs: number,
  nowMs: number,
): PutItemCommandInput {
  checkUntil(untilMs);
  checkUntil(nowMs);
  return {
    TableName: tableName,
    Item: {
      ...marshalDocItem({ ...item, expiresAt: leaseExpiresAt(untilMs) }),
      [LEASE_UNTIL_ATTRIBUTE]: { N: String(untilMs) },
    },
    ConditionExpression: 'attribute_not_exists(#pk) OR #until < :nowMs OR #expiresAt < :nowSeconds',
    ExpressionAttributeNames: { '#pk': 'pk', '#until': LEASE_UNTIL_ATTRIBUTE, '#expiresAt': 'expiresAt' },
    ExpressionAttributeValues: {
      ':nowMs': { N: String(nowMs) },
      ':nowSeconds': { N: String(Math.floor(nowMs / 1000)) },
    },
  };
}

/** Moves the end of the lease whose `doc` is exactly `ownerDoc` to `untilMs`; fails when the item is anyone else's or gone. */
export function renewLeaseCommand(
  tableName: string,
  key: { readonly pk: string; readonly sk: string },
  ownerDoc: string,
  untilMs: number,
): UpdateItemCommandInput {
  checkUntil(untilMs);
  const expiresAt = leaseExpiresAt(untilMs);
  checkExpiresAt(expiresAt);
  return {
    TableName: tableName,
    Key: itemKey(key.pk, key.sk),
    UpdateExpression: 'SET #until = :until, #expiresAt = :expiresAt',
    ConditionExpression: '#doc = :doc',
    ExpressionAttributeNames: { '#until': LEASE_UNTIL_ATTRIBUTE, '#expiresAt': 'expiresAt', '#doc': 'doc' },
    ExpressionAttributeValues: {
      ':until': { N: String(untilMs) },
      ':expiresAt': { N: String(expiresAt) },
      ':doc': marshalDoc(ownerDoc),
    },
  };
}
