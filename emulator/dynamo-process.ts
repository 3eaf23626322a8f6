/**
 * The emulator's side of the table process (ARCHITECTURE.md §3.4): `startDynamoProcess` runs the DynamoDB
 * stand-in in a child process (table-process.ts, bundled as dist/emulator/table.js) and keeps
 * `startDynamo`'s contract — `{ dataDir, port }` in, `{ endpoint, close() }` out — so routing's event loop
 * never parses, validates or stores a table call, as on Lambda. Tests that want a stand-in in their own
 * process keep calling `startDynamo`, which needs no build.
 *
 * The child's life is bound to this process by the IPC channel (it stops when the channel closes, however
 * this process ends); `close()` closes the channel and waits for the child to close LevelDB and exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { DynamoStandIn, StartDynamoOptions } from './dynamo';

/** What the table process says over the channel, once. */
export type TableProcessMessage =
  | { readonly type: 'ready'; readonly endpoint: string }
  | { readonly type: 'failed'; readonly message: string };

export interface StartDynamoProcessOptions extends StartDynamoOptions {
  /** The table process's entry; dist/emulator/table.js, beside the emulator's bundle, by default. */
  readonly entry?: string;
  /** The process ended without `close()` asking it to: the table, and the state it served, are gone. */
  readonly onExit?: (reason: string) => void;
}

export interface DynamoProcess extends DynamoStandIn {
  readonly pid: number;
}

/**
 * Node flags of the table process. A 1 MB young generation instead of the default 16 MB: dynalite's
 * garbage is short-lived and small, and this is most of what the process holds at idle (measured in
 * docs/ARCHITECTURE.md §3.4). The old generation is left unbounded: in memory the table is all there.
 */
const TABLE_NODE_FLAGS = ['--max-semi-space-size=1'];

/** How long `close()` waits for LevelDB to close before it kills the process. */
const CLOSE_TIMEOUT_MS = 10_000;

function describeExit(pid: number, code: number | null, signal: NodeJS.Signals | null): string {
  return `(table process ${pid}) exited ${signal === null ? `with code ${String(code)}` : `on ${signal}`}`;
}

export async function startDynamoProcess(options: StartDynamoProcessOptions): Promise<DynamoProcess> {
  const entry = options.entry ?? join(__dirname, 'table.js');
  const child = spawn(process.execPath, [...TABLE_NODE_FLAGS, entry, options.dataDir, String(options.port ?? 0)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'json',
  });
  const endpoint = await ready(child);
  const pid = child.pid ?? 0;
  let closing = false;
  // One listener: an exit `close()` asked for settles `exited`; any other is the caller's to hear of.
  const exited = new Promise<string | undefined>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!closing) options.onExit?.(`the DynamoDB stand-in ${describeExit(pid, code, signal)}`);
      resolve(code === 0 ? undefined : describeExit(pid, code, signal));
    }),
  );
  return {
    endpoint,
    pid,
    close: async () => {
      if (closing) return;
      closing = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_TIMEOUT_MS);
      const failure = await exited;
      clearTimeout(timer);
      if (failure !== undefined) throw new Error(`the DynamoDB stand-in did not close cleanly ${failure}`);
    },
  };
}

/** The endpoint the child reports, or its reason for not starting. */
function ready(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: TableProcessMessage) => {
      cleanup();
      if (message.type === 'ready') resolve(message.endpoint);
      else reject(new Error(message.message));
    };
    // 'close', not 'exit': it comes after the channel closed, so a `failed` the child sent is read first.
    const onClose = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`the DynamoDB stand-in ${describeExit(child.pid ?? 0, code, signal)} before it was ready`));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new Error(`cannot start the DynamoDB stand-in's process: ${error.message}`, { cause: error }));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('close', onClose);
      child.off('error', onError);
    };
    child.on('message', onMessage);
    child.once('close', onClose);
    child.once('error', onError);
  });
}
