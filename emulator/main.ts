/**
 * `npm start` / `npm run demo`: the local emulator. Starts the DynamoDB stand-in on a thread of its own
 * (unless FLEET_DYNAMODB_ENDPOINT names one), creates the table, serves every function of serverless.yml on
 * FLEET_PORT with response streaming, and runs the scheduled functions (the node poller) on a timer.
 * With `--demo` it also starts a simulated fleet that joins the router the way real nodes do, on the
 * demo's own defaults (demo-environment), and gentle client traffic through the router (demo-traffic), so
 * the dashboard, whose address it prints, has something to show.
 *
 * The process is one instance of the router: its handlers come from one bundle of them all
 * (dist/emulator/handlers.js, scripts/build.mjs), so every function shares one set of services. A node
 * that runs one request at a time gets one from this router whichever API the clients speak, and a
 * conversation's pin, the fleet snapshot and the queue view are the same for all of them. (In AWS each
 * function's containers are instances of their own, and share through the table: ARCHITECTURE.md §3.6.)
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { credentialWarnings, unsaidWarnings } from '../lib/services/http/api-keys';
import { loadConfig } from '../lib/services/platform/config';
import { parseKeyEntry } from '../lib/services/platform/key-entry';
import { runShutdownHooks } from '../lib/services/platform/shutdown-hooks';
import { createDynamoClient } from '../lib/services/store/client';
import { ensureTable } from '../lib/services/store/ensure-table';
import { dynamoSdk } from '../lib/services/store/sdk';
import { applyDemoEnvironment } from './demo-environment';
import { demoTrafficEnabled, startDemoTraffic } from './demo-traffic';
import { startDynamoThread } from './dynamo-thread';
import { listen } from './listen';
import { readRouteTable } from './routes';
import { startScheduler } from './scheduler';
import { createEmulatorServer } from './server';
import { shareVendorModules } from './shared-vendor';
import { startSimFleet } from './sim';
import { supportedNode, unsupportedNode } from './supported-node';

const projectRequire = createRequire(__filename);

async function main(): Promise<void> {
  const tooOld = unsupportedNode(process.version, supportedNode(join(__dirname, '..', '..')));
  if (tooOld !== undefined) throw new Error(tooOld);
  // Before anything loads the AWS SDK (it loads on first use): every function shares one copy of it.
  shareVendorModules(join(__dirname, '..', 'vendor'));
  const demo = process.argv.includes('--demo');
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  if (demo) applyDemoEnvironment(process.env);
  const config = loadConfig();
  const withTraffic = demo && demoTrafficEnabled(process.env);
  const root = join(__dirname, '..', '..');

  // The stand-in runs on a thread of its own, so the table's work never shares routing's event loop.
  const starting =
    config.dynamodbEndpoint === undefined
      ? startDynamoThread({
          dataDir: config.dataDir,
          port: 0,
          onExit: (reason) => {
            console.error(`Fleet Router stopped: ${reason}, and every table call would fail`);
            process.exit(1);
          },
        })
      : undefined;
  // While the table thread starts (on another core, where there is one), this one loads the AWS SDK.
  dynamoSdk();
  const dynamo = await starting;
  const endpoint = dynamo?.endpoint ?? config.dynamodbEndpoint;
  // The emulator is the functions' runtime: like Lambda, it hands them their environment.
  if (endpoint !== undefined) process.env['FLEET_DYNAMODB_ENDPOINT'] = endpoint;
  await ensureTable(createDynamoClient({ dynamodbEndpoint: endpoint }), config.table);

  const table = readRouteTable(join(root, 'serverless.yml'));
  const handlers = () => projectRequire(join(__dirname, 'handlers.js')) as Record<string, unknown>;
  const loadHandler = (fn: { name: string }) => {
    const handler = handlers()[fn.name];
    if (handler === undefined) throw new Error(`the emulator's handler bundle has no function ${fn.name}`);
    return handler;
  };
  const server = createEmulatorServer({ table, loadHandler });
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await dynamo?.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const routerUrl = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;

  // The keys as clients send them: a `name:` an entry gives is no part of the key.
  const keyOf = (entry: string | undefined) => (entry === undefined ? undefined : parseKeyEntry(entry).key);
  const nodeKey = keyOf(config.nodeKeys?.[0]);
  const fleet = demo
    ? await startSimFleet({ routerUrl, heartbeatIntervalMs: 5000, ...(nodeKey === undefined ? {} : { nodeKey }) })
    : undefined;
  if (fleet !== undefined) {
    const listed = [process.env['FLEET_NODES'], fleet.listedNodes].filter(
      (value) => value !== undefined && value !== '',
    );
    process.env['FLEET_NODES'] = listed.join(',');
  }
  const scheduler = startScheduler({ table, loadHandler, intervalMs: config.pollIntervalMs });
  const traffic = withTraffic
    ? startDemoTraffic({
        routerUrl,
        apiKey: keyOf(config.apiKeys?.[0]),
        imageGeneration: config.imageGeneration,
        transcription: config.transcription,
      })
    : undefined;

  // Tests and scripts read the first line: keep its words.
  console.log(`Fleet Router listening on ${routerUrl}${demo ? ' (demo fleet running)' : ''}`);
  console.log(`Dashboard: ${routerUrl}/dashboard`);
  for (const { message } of unsaidWarnings(credentialWarnings(config))) console.warn(`warning: ${message}`);

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    scheduler.stop();
    await traffic?.stop();
    await fleet?.stop();
    server.closeIdleConnections();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, 3000).unref();
    });
    // Every function bundle flushes what it wrote behind before the table goes away.
    await runShutdownHooks();
    await dynamo?.close();
    process.exit(0);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
}

main().catch((error: unknown) => {
  console.error(`Fleet Router did not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
