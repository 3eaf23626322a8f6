/**
 * The table thread (ARCHITECTURE.md §3.4): the emulator's DynamoDB stand-in (dynamo.ts) on a worker thread
 * of the router's process, so dynalite's parsing, validation and LevelDB calls never run on the event loop
 * that routes — as on Lambda, where the table is outside the function — without a second Node process and
 * its memory. Bundled as dist/emulator/table.js and started by `startDynamoThread` (dynamo-thread.ts) with
 * `{ dataDir, port }` as its `workerData`.
 *
 * It says `ready` (or `failed`) once; on `close` it closes dynalite and LevelDB (the data flushed) and ends.
 * On Linux it names its thread `fleet-table`, so `top -H` and the benchmark can tell it from routing's.
 */

import { writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { type DynamoStandIn, type StartDynamoOptions, startDynamo } from './dynamo';
import { TABLE_THREAD_NAME, type TableThreadMessage, type TableThreadRequest } from './dynamo-thread';

/** Best effort: a thread may rename itself through /proc on Linux; elsewhere it keeps Node's name. */
function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux, or /proc is not mounted: only the name is lost.
  }
}

async function main(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('the table thread runs under the emulator, as a worker thread');
  const options = workerData as StartDynamoOptions;
  nameThisThread(TABLE_THREAD_NAME);
  let standIn: DynamoStandIn;
  try {
    standIn = await startDynamo(options);
  } catch (error) {
    port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  port.on('message', (request: TableThreadRequest) => {
    if (request.type !== 'close') return;
    standIn.close().then(
      () => port.postMessage({ type: 'closed' } satisfies TableThreadMessage),
      (error: unknown) => port.postMessage({ type: 'closed', failure: String(error) } satisfies TableThreadMessage),
    );
  });
  port.postMessage({ type: 'ready', endpoint: standIn.endpoint } satisfies TableThreadMessage);
}

void main();
