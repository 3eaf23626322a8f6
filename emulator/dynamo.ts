/**
 * The DynamoDB stand-in (ARCHITECTURE.md §3.4): dynalite running in the calling process, on disk under
 * the data dir so the emulator keeps its state across restarts, or in memory for tests. It only
 * serves the API; the emulator creates the table with `ensureTable` from lib/store. The emulator runs
 * it on a thread of its own (table-thread.ts, started by dynamo-thread.ts); tests and the bench's
 * table role call it directly.
 */
import { mkdir } from 'node:fs/promises';
import { request as httpRequest, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { closeReadIterators } from './dynalite-iterators';

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
  closeReadIterators();
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
  // LevelDB opens in the background; the first request waits for it, so once this answers the data
  // folder's lock is ours and a second stand-in on the same folder fails in its own check.
  try {
    await listTables(port);
  } catch (error) {
    // The probe's failure is the one to report; closing what did open is only tidying up.
    await closeServer(server).catch(() => undefined);
    throw error;
  }
  return { endpoint: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}

/**
 * One ListTables over plain node:http, so the stand-in's thread loads no AWS SDK (about 20 MB). dynalite
 * checks that a signature is there and well formed, not what it signs.
 */
function listTables(port: number): Promise<void> {
  const headers = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': 'DynamoDB_20120810.ListTables',
    'x-amz-date': '20240101T000000Z',
    authorization:
      'AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
  };
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, method: 'POST', path: '/', headers, agent: false },
      (reply) => {
        let body = '';
        reply.setEncoding('utf8');
        reply.on('data', (chunk: string) => {
          body += chunk;
        });
        reply.once('error', reject);
        reply.once('end', () =>
          reply.statusCode === 200
            ? resolve()
            : reject(new Error(`dynalite answered ListTables with ${String(reply.statusCode)}: ${body}`)),
        );
      },
    );
    request.once('error', reject);
    request.end('{"Limit":1}');
  });
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
