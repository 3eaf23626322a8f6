/**
 * The table process (ARCHITECTURE.md §3.4): the emulator's DynamoDB stand-in (dynamo.ts) in a process of
 * its own, so dynalite's parsing, validation and LevelDB work never run on the router's event loop — as on
 * Lambda, where the table is outside the function. Bundled as dist/emulator/table.js and started by
 * `startDynamoProcess` (dynamo-process.ts) with an IPC channel: `node table.js <dataDir> <port>`.
 *
 * Its life is the router's: it reports `ready` (or `failed`) over the channel, and when the channel
 * closes — the router asks it to stop by disconnecting, or the router died, even by SIGKILL — it closes
 * LevelDB (the data flushed) and exits.
 */

import { type DynamoStandIn, startDynamo } from './dynamo';
import type { TableProcessMessage } from './dynamo-process';

function send(message: TableProcessMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined || !process.connected) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

async function main(): Promise<void> {
  const [dataDir, port] = process.argv.slice(2);
  if (process.send === undefined) throw new Error('the table process runs under the emulator, over an IPC channel');
  if (dataDir === undefined || port === undefined) throw new Error('usage: table.js <dataDir> <port>');
  // A terminal's Ctrl-C reaches the whole process group, but the router still flushes what it wrote
  // behind into the table before it lets the table go: the router alone decides when this process ends.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);

  let standIn: DynamoStandIn | undefined;
  let channelClosed = false;
  const stop = () => {
    channelClosed = true;
    standIn?.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`the DynamoDB stand-in did not close cleanly: ${String(error)}`);
        process.exit(1);
      },
    );
  };
  // Listening before the start: a router that dies while the table starts must not leave it running.
  process.once('disconnect', stop);
  standIn = await startDynamo({ dataDir, port: Number(port) });
  if (channelClosed) stop();
  else await send({ type: 'ready', endpoint: standIn.endpoint });
}

main().catch(async (error: unknown) => {
  await send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
