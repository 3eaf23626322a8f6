/**
 * The embedded DynamoDB stand-in (ARCHITECTURE.md §3.4): dynalite running in this process, on disk under
 * the data dir so the emulator keeps its state across restarts, or in memory for tests. It only
 * serves the API; the emulator creates the table with `ensureTable` from lib/store.
 */
import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createDynamoClient } from '../lib/services/store/client';
import { dynamoSdk } from '../lib/services/store/sdk';

/** The part of dynalite's options we use (the package ships no typings). */
interface DynaliteOptions {
  /** LevelDB folder; in memory when absent. */
  readonly path?: string;
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
}

/** `require('dynalite')(options)` returns a plain node:http server whose `close` also closes the store. */
type DynaliteFactory = (options: DynaliteOptions) => Server;

export interface StartDynamoOptions {
  /** Folder for the data (a `dynamodb` subfolder is used), or ':memory:' to keep nothing. */
  readonly dataDir: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
}

export interface DynamoStandIn {
  /** `http://127.0.0.1:<port>`, for `createDynamoClient({ dynamodbEndpoint })`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** dynalite's LevelDB (`level`), the part used to check the data dir before starting. */
interface LevelModule {
  readonly Level: new (location: string) => { open(): Promise<void>; close(): Promise<void> };
}

export const IN_MEMORY = ':memory:';

function loadDynalite(): DynaliteFactory {
  // Loaded on demand: dynalite and LevelDB are only needed when the stand-in actually starts.
  const factory: unknown = require('dynalite');
  if (typeof factory !== 'function') throw new Error('dynalite did not export a factory function');
  return factory as DynaliteFactory;
}

/**
 * dynalite opens its LevelDB lazily and, when another process holds the folder's lock, throws
 * "Database is not open" from a request handler, crashing the process. Opening it once here turns
 * that into a clear startup error.
 */
async function checkDataDirFree(path: string): Promise<void> {
  const load = createRequire(require.resolve('dynalite'));
  const { Level } = load('level') as LevelModule;
  const db = new Level(path);
  try {
    await db.open();
  } catch (error) {
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    throw new Error(`cannot open the DynamoDB data in ${path} (is another emulator using it?): ${reason}`, {
      cause: error,
    });
  }
  await db.close();
}

export async function startDynamo(options: StartDynamoOptions): Promise<DynamoStandIn> {
  let path: string | undefined;
  if (options.dataDir !== IN_MEMORY) {
    path = join(options.dataDir, 'dynamodb');
    await mkdir(path, { recursive: true });
    await checkDataDirFree(path);
  }
  const server = loadDynalite()({
    ...(path === undefined ? {} : { path }),
    // The stand-in has no real provisioning, so tables are ACTIVE at once.
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  const port = await listen(server, options.port ?? 0);
  const endpoint = `http://127.0.0.1:${port}`;
  // LevelDB opens in the background; the first request waits for it, so once this answers the data
  // folder's lock is ours and a second stand-in on the same folder fails in its own check.
  await createDynamoClient({ dynamodbEndpoint: endpoint }).send(new (dynamoSdk().ListTablesCommand)({ Limit: 1 }));
  return { endpoint, close: () => closeServer(server) };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('dynalite is not listening on TCP'));
      else resolve(address.port);
    });
  });
}

/** Stops accepting, drops idle keep-alive sockets, and waits for dynalite to close its LevelDB. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error === undefined || error === null ? resolve() : reject(error)));
    server.closeIdleConnections();
  });
}
