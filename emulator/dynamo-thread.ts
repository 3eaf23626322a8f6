/**
 * The emulator's side of the table thread (ARCHITECTURE.md §3.4): `startDynamoThread` runs the DynamoDB
 * stand-in on a worker thread (table-thread.ts, bundled as dist/emulator/table.js) and keeps `startDynamo`'s
 * contract — `{ dataDir, port }` in, `{ endpoint, close() }` out — so routing's event loop never parses,
 * validates or stores a table call, as on Lambda. Tests that want a stand-in on their own thread keep
 * calling `startDynamo`, which needs no build.
 *
 * A thread, not a process: a second Node process cost its own 40–55 MB (the binary's pages, a second
 * runtime) besides the table's data, which the router's memory budget (§6) could not hold. The thread
 * lives and dies with the process; `close()` asks it to close dynalite and LevelDB and waits for that.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DynamoStandIn, StartDynamoOptions } from './dynamo';

/** The table thread's name on Linux (`/proc/<pid>/task/<tid>/comm`), set by the thread itself. */
export const TABLE_THREAD_NAME = 'fleet-table';

/** What the table thread says: `ready` or `failed` once, then `closed` when asked to close. */
export type TableThreadMessage =
  | { readonly type: 'ready'; readonly endpoint: string }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'closed'; readonly failure?: string };

/** What the table thread is asked. */
export interface TableThreadRequest {
  readonly type: 'close';
}

export interface StartDynamoThreadOptions extends StartDynamoOptions {
  /** The table thread's entry; dist/emulator/table.js, beside the emulator's bundle, by default. */
  readonly entry?: string;
  /** The thread ended without `close()` asking it to: the table, and the state it served, are gone. */
  readonly onExit?: (reason: string) => void;
}

/**
 * The table thread's young generation, in MB: dynalite's garbage is short-lived and small, and a large
 * young generation is most of what an idle table holds (measured in docs/ARCHITECTURE.md §3.4). The old
 * generation is left unbounded: in memory (`:memory:`) the table is all there.
 */
const TABLE_YOUNG_GENERATION_MB = 3;

/** How long `close()` waits for LevelDB to close before it stops the thread. */
const CLOSE_TIMEOUT_MS = 10_000;

export async function startDynamoThread(options: StartDynamoThreadOptions): Promise<DynamoStandIn> {
  const entry = options.entry ?? join(__dirname, 'table.js');
  const data: StartDynamoOptions = { dataDir: options.dataDir, port: options.port ?? 0 };
  const worker = new Worker(entry, {
    workerData: data,
    resourceLimits: { maxYoungGenerationSizeMb: TABLE_YOUNG_GENERATION_MB },
  });
  let closing = false;
  /**
   * Set once the thread said it is ready. A thread that fails to start says why and ends: Node hands over
   * its last message and then 'exit' in one go, before the start's rejection has run, so an end before
   * `started` is the start's failure, told by `ready` — never the running table lost.
   */
  let started = false;
  let failure: string | undefined;
  worker.on('error', (error) => {
    failure = error.message;
  });
  const exited = new Promise<number>((resolve) =>
    worker.once('exit', (code) => {
      if (!closing && started) {
        options.onExit?.(`the DynamoDB stand-in (table thread) ended: ${failure ?? `exit code ${code}`}`);
      }
      resolve(code);
    }),
  );
  let endpoint: string;
  try {
    endpoint = await ready(worker);
    started = true;
  } catch (error) {
    // Not started: the caller hears why from the rejection, not as a table lost while running.
    closing = true;
    await worker.terminate();
    throw error;
  }
  return {
    endpoint,
    close: async () => {
      if (closing) return;
      closing = true;
      const closed = new Promise<TableThreadMessage | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), CLOSE_TIMEOUT_MS);
        worker.on('message', (message: TableThreadMessage) => {
          if (message.type !== 'closed') return;
          clearTimeout(timer);
          resolve(message);
        });
        void exited.then(() => resolve(undefined));
      });
      worker.postMessage({ type: 'close' } satisfies TableThreadRequest);
      const answer = await closed;
      await worker.terminate();
      if (answer === undefined) throw new Error('the DynamoDB stand-in did not close within 10 s, or its thread ended');
      if (answer.type === 'closed' && answer.failure !== undefined) {
        throw new Error(`the DynamoDB stand-in did not close cleanly: ${answer.failure}`);
      }
    },
  };
}

/** The endpoint the thread reports, or its reason for not starting. */
function ready(worker: Worker): Promise<string> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: TableThreadMessage) => {
      if (message.type === 'closed') return;
      cleanup();
      if (message.type === 'ready') resolve(message.endpoint);
      else reject(new Error(message.message));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(
        new Error(`the DynamoDB stand-in's thread failed before it was ready: ${error.message}`, { cause: error }),
      );
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new Error(`the DynamoDB stand-in's thread ended with code ${code} before it was ready`));
    };
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
  });
}
