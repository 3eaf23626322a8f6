/**
 * A small typed wrapper over the real SDK for the one table (ARCHITECTURE.md §3.4 and §3.6): the
 * domain-neutral operations every repository needs — documents under keys, prefix queries that follow
 * pages and skip expired items, conditional puts for locks, leases (./lease-commands: a lock its owner
 * renews), `ADD` counters, batched puts. Only plain
 * item operations: no transactions, PartiQL or TTL administration (the stand-in lacks them).
 */
import type { DynamoDBClient, QueryCommandInput } from '@aws-sdk/client-dynamodb';
import { sleep as realSleep } from './backoff';
import { batchPut } from './batch-put';
import type { CounterFields, CounterMaxima, CounterSet } from './counter-update';
import { buildFieldsUpdate, type FieldsUpdate } from './fields-update';
import {
  type AttributeMap,
  type DocItem,
  isLive,
  itemKey,
  marshalDoc,
  marshalDocItem,
  type StoredItem,
  unmarshalItem,
} from './item';
import { renewLeaseCommand, takeLeaseCommand } from './lease-commands';
import { createMaximaWriter } from './maxima-writer';
import { dynamoSdk } from './sdk';
import type { BatchWriteOutcome } from './store-errors';
import { createTableCall, type TableCall } from './table-call';

export interface QueryOptions {
  /** Only sort keys starting with this (`begins_with`). */
  readonly skPrefix?: string;
  /** At most this many live items; pages are followed until it is reached. Default: all. */
  readonly limit?: number;
  /** Query `gsi1`: `pk` and `skPrefix` then apply to `gsi1pk` and `gsi1sk`. */
  readonly index?: 'gsi1';
  /** Ascending sort-key order unless false. */
  readonly scanForward?: boolean;
  /** Only sort keys below this (`<`): where a newest-first read left off (trace pages, read in steps). */
  readonly skBefore?: string;
}

export interface PutIfAbsentOptions {
  /** Epoch seconds: an existing item whose `expiresAt` is below this counts as absent (lock takeover). */
  readonly orExpiredBefore?: number;
}

export interface DeleteOptions {
  /** Delete only if the stored `doc` is exactly this (a lock released only by its owner); marshalled as a put would. */
  readonly ifDoc?: string;
}

export interface Table {
  readonly name: string;
  putDoc(item: DocItem): Promise<void>;
  /** The live item under this key, or undefined (absent or expired). */
  getDoc(pk: string, sk: string): Promise<StoredItem | undefined>;
  queryDocs(pk: string, options?: QueryOptions): Promise<StoredItem[]>;
  /** True when an item was there and is now deleted; false when absent or `ifDoc` did not match. */
  deleteItem(pk: string, sk: string, options?: DeleteOptions): Promise<boolean>;
  /** Conditional put; false when an item holds the key (one that expired before `orExpiredBefore` does not). */
  putIfAbsent(item: DocItem, options?: PutIfAbsentOptions): Promise<boolean>;
  /** Takes a lease on the item's key until `untilMs` (epoch ms); false while another lease there has not lapsed at `nowMs`. */
  takeLease(item: Omit<DocItem, 'expiresAt'>, untilMs: number, nowMs: number): Promise<boolean>;
  /** Extends the lease whose `doc` is exactly `ownerDoc` to `untilMs`; false when it is someone else's or gone. */
  renewLease(pk: string, sk: string, ownerDoc: string, untilMs: number): Promise<boolean>;
  /**
   * `ADD` each counter (creating the item if needed), `SET` the extra fields and raise each of `maxima` to
   * at least its value, exactly and without a read (`raiseMaxima`). Resolves with the requests it took:
   * one, unless a maximum's condition failed. Never applies the counters twice.
   */
  addCounters(
    pk: string,
    sk: string,
    counters: CounterFields,
    set?: CounterSet,
    maxima?: CounterMaxima,
  ): Promise<number>;
  /**
   * One UpdateItem that sets `doc` and string fields and removes others, leaving the item's other
   * attributes alone (./fields-update). False when `ifExists` and there is no item (nothing written).
   */
  updateFields(pk: string, sk: string, update: FieldsUpdate): Promise<boolean>;
  /** BatchWriteItem in chunks of 25, re-sending unprocessed items; throws `BatchWriteIncompleteError`. */
  batchPut(items: readonly DocItem[]): Promise<BatchWriteOutcome>;
}

export interface TableOptions {
  /** Epoch ms; decides which items count as expired. */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** BatchWrite chunks in flight at once. Default 4. */
  readonly batchConcurrency?: number;
  /** Rounds of re-sending unprocessed items before `batchPut` gives up on them. Default 8. */
  readonly maxUnprocessedRounds?: number;
  /** Budget of each request to the table, SDK retries included (FLEET_TABLE_TIMEOUT_MS). Default 2000. */
  readonly timeoutMs?: number;
  /** Creates the table again when a request finds it gone (`ensureTable`); absent: that stays an error. */
  readonly recreate?: () => Promise<unknown>;
  /** Where a recreated table is reported. Default: console.error. */
  readonly log?: (line: string) => void;
}

/** The live-item filter every read applies; real DynamoDB also returns expired, not-yet-reaped items. */
const LIVE_FILTER = 'attribute_not_exists(#expiresAt) OR #expiresAt >= :now';

export function openTable(client: DynamoDBClient, name: string, options: TableOptions = {}): Table {
  const now = options.now ?? Date.now;
  const nowSeconds = () => Math.floor(now() / 1000);
  const call = createTableCall({
    timeoutMs: options.timeoutMs ?? 2000,
    ...(options.recreate === undefined ? {} : { recreate: options.recreate }),
    ...(options.log === undefined ? {} : { log: options.log }),
  });
  const batchContext = {
    call,
    client,
    tableName: name,
    sleep: options.sleep ?? realSleep,
    concurrency: options.batchConcurrency ?? 4,
    maxUnprocessedRounds: options.maxUnprocessedRounds ?? 8,
  };
  /** Sends a conditional write: true once written, false when its condition fails (the key is held). */
  const sentUnlessConditionFails = async (send: (abortSignal: AbortSignal) => Promise<unknown>): Promise<boolean> =>
    (await conditional(call(send).then(() => true))) ?? false;

  const counterWriter = createMaximaWriter(async (pk, sk, update) => {
    const command = new (dynamoSdk().UpdateItemCommand)({ TableName: name, Key: itemKey(pk, sk), ...update });
    const applied = call((abortSignal) => client.send(command, { abortSignal })).then(() => true);
    return (await conditional(applied)) ?? false;
  });

  return {
    name,
    async putDoc(item) {
      await call((abortSignal) =>
        client.send(new (dynamoSdk().PutItemCommand)({ TableName: name, Item: marshalDocItem(item) }), { abortSignal }),
      );
    },
    async getDoc(pk, sk) {
      const output = await call((abortSignal) =>
        client.send(new (dynamoSdk().GetItemCommand)({ TableName: name, Key: itemKey(pk, sk) }), { abortSignal }),
      );
      const item = output.Item === undefined ? undefined : unmarshalItem(output.Item);
      return item !== undefined && isLive(item, nowSeconds()) ? item : undefined;
    },
    queryDocs: (pk, queryOptions = {}) =>
      queryAll(call, client, queryInput(name, pk, queryOptions, nowSeconds()), queryOptions.limit),
    async deleteItem(pk, sk, deleteOptions = {}) {
      const condition =
        deleteOptions.ifDoc === undefined
          ? {}
          : {
              ConditionExpression: '#doc = :doc',
              ExpressionAttributeNames: { '#doc': 'doc' },
              ExpressionAttributeValues: { ':doc': marshalDoc(deleteOptions.ifDoc) },
            };
      const deleted = call((abortSignal) =>
        client.send(
          new (dynamoSdk().DeleteItemCommand)({
            TableName: name,
            Key: itemKey(pk, sk),
            ReturnValues: 'ALL_OLD',
            ...condition,
          }),
          { abortSignal },
        ),
      ).then((output) => output.Attributes !== undefined);
      return (await conditional(deleted)) ?? false;
    },
    async putIfAbsent(item, putOptions = {}) {
      const takeover = putOptions.orExpiredBefore;
      const command = new (dynamoSdk().PutItemCommand)({
        TableName: name,
        Item: marshalDocItem(item),
        ConditionExpression:
          takeover === undefined ? 'attribute_not_exists(#pk)' : 'attribute_not_exists(#pk) OR #expiresAt < :now',
        ExpressionAttributeNames: takeover === undefined ? { '#pk': 'pk' } : { '#pk': 'pk', '#expiresAt': 'expiresAt' },
        ...(takeover === undefined ? {} : { ExpressionAttributeValues: { ':now': { N: String(takeover) } } }),
      });
      return sentUnlessConditionFails((abortSignal) => client.send(command, { abortSignal }));
    },
    async takeLease(item, untilMs, nowMs) {
      const command = new (dynamoSdk().PutItemCommand)(takeLeaseCommand(name, item, untilMs, nowMs));
      return sentUnlessConditionFails((abortSignal) => client.send(command, { abortSignal }));
    },
    async renewLease(pk, sk, ownerDoc, untilMs) {
      const command = new (dynamoSdk().UpdateItemCommand)(renewLeaseCommand(name, { pk, sk }, ownerDoc, untilMs));
      return sentUnlessConditionFails((abortSignal) => client.send(command, { abortSignal }));
    },
    addCounters: (pk, sk, counters, set = {}, maxima = {}) => counterWriter.write(pk, sk, counters, set, maxima),
    async updateFields(pk, sk, update) {
      const expression = buildFieldsUpdate(update);
      if (expression === undefined) return true;
      const command = new (dynamoSdk().UpdateItemCommand)({ TableName: name, Key: itemKey(pk, sk), ...expression });
      return sentUnlessConditionFails((abortSignal) => client.send(command, { abortSignal }));
    },
    batchPut: (items) => batchPut(batchContext, items),
  };
}

/** The request's value, or undefined when its condition did not hold. */
async function conditional<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof dynamoSdk().ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

function queryInput(tableName: string, pk: string, options: QueryOptions, nowSeconds: number): QueryCommandInput {
  const [hash, range] = options.index === 'gsi1' ? ['gsi1pk', 'gsi1sk'] : ['pk', 'sk'];
  const names: Record<string, string> = { '#hash': hash, '#expiresAt': 'expiresAt' };
  const values: AttributeMap = { ':hash': { S: pk }, ':now': { N: String(nowSeconds) } };
  let keyCondition = '#hash = :hash';
  if (options.skPrefix !== undefined) {
    names['#range'] = range;
    values[':prefix'] = { S: options.skPrefix };
    keyCondition += ' AND begins_with(#range, :prefix)';
  }
  if (options.skBefore !== undefined) {
    if (options.skPrefix !== undefined) throw new Error('skPrefix and skBefore cannot be combined');
    names['#range'] = range;
    values[':before'] = { S: options.skBefore };
    keyCondition += ' AND #range < :before';
  }
  return {
    TableName: tableName,
    ...(options.index === undefined ? {} : { IndexName: options.index }),
    KeyConditionExpression: keyCondition,
    FilterExpression: LIVE_FILTER,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: options.scanForward ?? true,
  };
}

/**
 * Follows `LastEvaluatedKey` until `limit` live items are found or the partition ends. DynamoDB
 * applies `Limit` before the expiry filter, so a page can hold fewer live items than asked for.
 */
async function queryAll(
  call: TableCall,
  client: DynamoDBClient,
  input: QueryCommandInput,
  limit: number | undefined,
): Promise<StoredItem[]> {
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
    throw new Error(`limit must be a whole number, got ${limit}`);
  const items: StoredItem[] = [];
  let startKey: AttributeMap | undefined;
  while (limit === undefined || items.length < limit) {
    const command = new (dynamoSdk().QueryCommand)({
      ...input,
      ...(limit === undefined ? {} : { Limit: limit - items.length }),
      ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
    });
    const output = await call((abortSignal) => client.send(command, { abortSignal }));
    for (const attributes of output.Items ?? []) {
      const item = unmarshalItem(attributes);
      if (item !== undefined) items.push(item);
    }
    startKey = output.LastEvaluatedKey;
    if (startKey === undefined) break;
  }
  return items;
}
