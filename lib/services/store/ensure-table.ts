/**
 * Creates the one table (ARCHITECTURE.md §3.4) where nothing creates it for us: the emulator's stand-in
 * and tests. In AWS, serverless.yml declares it (with TTL on `expiresAt`, which code never sets).
 * Idempotent and safe when several callers race: losing the CreateTable race is success. A table still
 * being deleted (DELETING, as one deleted a moment ago is) is waited out and then created again.
 */
import type { DynamoDBClient, TableDescription } from '@aws-sdk/client-dynamodb';
import { sleep } from './backoff';
import { dynamoSdk } from './sdk';

export const GSI1 = 'gsi1';

export interface EnsureTableOptions {
  /** How long to wait for ACTIVE. Default 60 s (real DynamoDB takes seconds; dynalite none). */
  readonly timeoutMs?: number;
}

/** 'created' when this call created the table, 'existed' otherwise. */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  options: EnsureTableOptions = {},
): Promise<'created' | 'existed'> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let created = false;
  for (let attempt = 0; ; attempt++) {
    const table = await describe(client, tableName);
    if (table !== undefined && isActive(table)) {
      checkSchema(table);
      return created ? 'created' : 'existed';
    }
    // Missing, or gone while a deletion was waited out: create it. Refused (another caller creates it, or
    // the old one is still being deleted): describe again after the wait.
    const createdNow = table === undefined && (await create(client, tableName));
    created ||= createdNow;
    if (Date.now() >= deadline) {
      throw new Error(`table ${tableName} is ${table?.TableStatus ?? 'missing'} after ${timeoutMs} ms`);
    }
    // dynalite flips to ACTIVE on the next tick; real DynamoDB takes seconds.
    if (!createdNow) await sleep(Math.min(1000, 10 * 2 ** attempt));
  }
}

function isActive(table: TableDescription): boolean {
  const indexesActive = (table.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
  return table.TableStatus === 'ACTIVE' && indexesActive;
}

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    const output = await client.send(new (dynamoSdk().DescribeTableCommand)({ TableName: tableName }));
    return output.Table;
  } catch (error) {
    if (error instanceof dynamoSdk().ResourceNotFoundException) return undefined;
    throw error;
  }
}

/** True when this call created it; false when a racing caller got there first. */
async function create(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const string = (name: string) => ({ AttributeName: name, AttributeType: 'S' as const });
  try {
    await client.send(
      new (dynamoSdk().CreateTableCommand)({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [string('pk'), string('sk'), string('gsi1pk'), string('gsi1sk')],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: GSI1,
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof dynamoSdk().ResourceInUseException) return false;
    throw error;
  }
}

/** An existing table made by hand with another key schema would fail later in confusing ways. */
function checkSchema(table: TableDescription): void {
  const keys = (table.KeySchema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`).join(',');
  const gsi = table.GlobalSecondaryIndexes?.find((index) => index.IndexName === GSI1);
  const gsiKeys = (gsi?.KeySchema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`).join(',');
  if (keys !== 'pk:HASH,sk:RANGE' || gsiKeys !== 'gsi1pk:HASH,gsi1sk:RANGE') {
    throw new Error(
      `table ${table.TableName} has keys [${keys}] and ${GSI1} [${gsiKeys}]; expected pk/sk and gsi1pk/gsi1sk`,
    );
  }
}
