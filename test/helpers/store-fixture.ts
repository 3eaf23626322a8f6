/**
 * Test fixture for the store suites: a real dynalite in this process (ARCHITECTURE.md §3.4: the stand-in
 * is the only store there is) with a fresh table whose name is unique to the test file.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamo } from '../../emulator/dynamo';
import { createDynamoClient } from '../../lib/services/store/client';
import { ensureTable } from '../../lib/services/store/ensure-table';
import { openTable, type Table, type TableOptions } from '../../lib/services/store/table';

export interface StoreFixture {
  readonly endpoint: string;
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly table: Table;
  close(): Promise<void>;
}

let counter = 0;

/** A table name no other test file uses, even when files run in parallel workers. */
export function uniqueTableName(label: string): string {
  counter++;
  return `test-${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export async function startStore(label: string, tableOptions: TableOptions = {}): Promise<StoreFixture> {
  const dynamo = await startDynamo({ dataDir: ':memory:', port: 0 });
  const client = createDynamoClient({ dynamodbEndpoint: dynamo.endpoint });
  const tableName = uniqueTableName(label);
  await ensureTable(client, tableName);
  return {
    endpoint: dynamo.endpoint,
    client,
    tableName,
    table: openTable(client, tableName, tableOptions),
    close: () => dynamo.close(),
  };
}
