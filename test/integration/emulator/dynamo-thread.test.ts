/**
 * `startDynamoThread` (emulator/dynamo-thread.ts): the built table thread (dist/emulator/table.js) serves
 * the table and closes LevelDB when asked, so the data dir is free again; a thread that cannot start makes
 * the start fail with its reason and is not reported as a table lost; a thread that dies while serving is.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { startDynamoThread } from '../../../emulator/dynamo-thread';
import { createDynamoClient } from '../../../lib/services/store/client';
import { dynamoSdk } from '../../../lib/services/store/sdk';

const builtEntry = join(__dirname, '..', '..', '..', 'dist', 'emulator', 'table.js');
const fixture = (name: string) => join(__dirname, '..', '..', 'fixtures', 'table-thread', name);
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function freshDataDir(): string {
  const folder = mkdtempSync(join(tmpdir(), 'fleet-table-thread-'));
  folders.push(folder);
  return folder;
}

async function tableNames(endpoint: string): Promise<string[]> {
  const client = createDynamoClient({ dynamodbEndpoint: endpoint });
  const listed = await client.send(new (dynamoSdk().ListTablesCommand)({}));
  client.destroy();
  return listed.TableNames ?? [];
}

describe('startDynamoThread', () => {
  it('serves the table, and after close() the data dir can be opened again', async () => {
    if (!existsSync(builtEntry)) throw new Error(`${builtEntry} is missing: run "npm run build" (npm test does) first`);
    const dataDir = freshDataDir();
    const lost: string[] = [];
    const first = await startDynamoThread({ dataDir, entry: builtEntry, onExit: (reason) => lost.push(reason) });

    const served = await tableNames(first.endpoint);
    await first.close();
    const second = await startDynamoThread({ dataDir, entry: builtEntry });
    await second.close();

    expect(served).toEqual([]);
    expect(lost).toEqual([]);
  }, 20_000);

  it('fails to start, naming why, on a data dir another stand-in holds', async () => {
    const dataDir = freshDataDir();
    const holder = await startDynamoThread({ dataDir, entry: builtEntry });

    const second = startDynamoThread({ dataDir, entry: builtEntry });

    await expect(second).rejects.toThrow(/cannot open the DynamoDB data in .* \(is another emulator using it\?\)/);
    await holder.close();
  }, 20_000);

  it('rejects with the reason a thread gives and does not report it as a table lost', async () => {
    const lost: string[] = [];

    const start = startDynamoThread({
      dataDir: ':memory:',
      entry: fixture('fails-to-start.cjs'),
      onExit: (reason) => lost.push(reason),
    });

    await expect(start).rejects.toThrow('cannot open the DynamoDB data in /nowhere');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lost).toEqual([]);
  });

  it('reports a thread that dies while serving, with its error', async () => {
    let reportLoss: (reason: string) => void = () => undefined;
    const lost = new Promise<string>((resolve) => {
      reportLoss = resolve;
    });

    await startDynamoThread({ dataDir: ':memory:', entry: fixture('dies-after-ready.cjs'), onExit: reportLoss });

    expect(await lost).toBe('the DynamoDB stand-in (table thread) ended: the stand-in broke');
  });
});
