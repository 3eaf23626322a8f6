/**
 * BatchWriteItem done properly (ARCHITECTURE.md §3.5): chunks of 25 (the API's limit; 26 is a
 * ValidationException), duplicate keys collapsed (the API rejects a batch naming one key twice; the
 * later put wins), a few chunks in flight at once, and `UnprocessedItems` re-sent with backoff. What
 * still could not be written is reported item by item, never silently lost.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { backoffDelay } from './backoff';
import { chunk, settleLimited } from './concurrency';
import { type AttributeMap, type DocItem, keyId, marshalDocItem } from './item';
import { dynamoSdk } from './sdk';
import { BatchWriteIncompleteError, type BatchWriteOutcome } from './store-errors';
import type { TableCall } from './table-call';

export const MAX_BATCH_WRITE = 25;

export interface BatchPutContext {
  /** Sends under the table's deadline, recreating a vanished table (./table-call). */
  readonly call: TableCall;
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly sleep: (ms: number) => Promise<void>;
  /** Chunks in flight at once. */
  readonly concurrency: number;
  /** Rounds of re-sending `UnprocessedItems` before giving up on them. */
  readonly maxUnprocessedRounds: number;
}

/** Keeps the last put of each key, in first-seen order. */
export function collapseDuplicates(items: readonly DocItem[]): DocItem[] {
  const byKey = new Map<string, DocItem>();
  for (const item of items) byKey.set(keyId(item.pk, item.sk), item);
  return [...byKey.values()];
}

class ChunkFailure extends Error {
  constructor(
    readonly unwritten: readonly DocItem[],
    readonly outcome: BatchWriteOutcome,
    override readonly cause: unknown,
  ) {
    super('chunk failed');
  }
}

interface Entry {
  readonly item: DocItem;
  readonly attributes: AttributeMap;
}

async function writeChunk(context: BatchPutContext, entries: readonly Entry[]): Promise<BatchWriteOutcome> {
  const items = entries.map((entry) => entry.item);
  const byKey = new Map(items.map((item) => [keyId(item.pk, item.sk), item]));
  let requests = entries.map((entry) => entry.attributes);
  let sent = 0;
  for (let round = 0; ; round++) {
    if (round > 0) await context.sleep(backoffDelay(round, 25, 1000));
    const outcome = () => ({ requests: sent, retries: Math.max(0, sent - 1), written: items.length - requests.length });
    let unprocessed: AttributeMap[];
    try {
      sent++;
      const command = new (dynamoSdk().BatchWriteItemCommand)({
        RequestItems: { [context.tableName]: requests.map((Item) => ({ PutRequest: { Item } })) },
      });
      const output = await context.call((abortSignal) => context.client.send(command, { abortSignal }));
      unprocessed = (output.UnprocessedItems?.[context.tableName] ?? []).flatMap((request) =>
        request.PutRequest?.Item === undefined ? [] : [request.PutRequest.Item],
      );
    } catch (error) {
      throw new ChunkFailure(unwrittenItems(requests, byKey), outcome(), error);
    }
    requests = unprocessed;
    if (requests.length === 0) return outcome();
    if (round + 1 >= context.maxUnprocessedRounds) {
      const cause = new Error(`the table left items unprocessed ${context.maxUnprocessedRounds} times (throttled)`);
      throw new ChunkFailure(unwrittenItems(requests, byKey), outcome(), cause);
    }
  }
}

function unwrittenItems(requests: readonly AttributeMap[], byKey: ReadonlyMap<string, DocItem>): DocItem[] {
  return requests.flatMap(({ pk, sk }) => {
    const item = byKey.get(keyId(pk?.S ?? '', sk?.S ?? ''));
    return item === undefined ? [] : [item];
  });
}

/** Writes every item; throws `BatchWriteIncompleteError` naming the items that were not written. */
export async function batchPut(context: BatchPutContext, items: readonly DocItem[]): Promise<BatchWriteOutcome> {
  // Marshalling first: an invalid item fails the call before anything is sent.
  const entries = collapseDuplicates(items).map((item) => ({ item, attributes: marshalDocItem(item) }));
  const results = await settleLimited(
    chunk(entries, MAX_BATCH_WRITE).map((entries) => () => writeChunk(context, entries)),
    context.concurrency,
  );
  const total = { requests: 0, retries: 0, written: 0 };
  const unwritten: DocItem[] = [];
  let firstCause: unknown;
  for (const result of results) {
    const outcome = result.status === 'fulfilled' ? result.value : failureOf(result.reason).outcome;
    total.requests += outcome.requests;
    total.retries += outcome.retries;
    total.written += outcome.written;
    if (result.status === 'rejected') {
      const failure = failureOf(result.reason);
      unwritten.push(...failure.unwritten);
      firstCause ??= failure.cause;
    }
  }
  if (unwritten.length > 0) throw new BatchWriteIncompleteError(unwritten, total, firstCause);
  return total;
}

function failureOf(reason: unknown): ChunkFailure {
  if (reason instanceof ChunkFailure) return reason;
  // writeChunk throws nothing else; rethrowing keeps a bug here from passing as a table failure.
  throw reason;
}
