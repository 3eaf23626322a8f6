/**
 * Serverless Framework v3 plugin: `serverless offline` runs as `npm start` does, with nothing to set up first
 * (docs/deploying.md "Running under serverless-offline"; ARCHITECTURE.md §3.1). Before serverless-offline starts, and on
 * that command only, it
 *
 * 1. builds the bundles (scripts/build.mjs, the build `npm start` runs): the functions run from dist/, which a
 *    fresh clone lacks and a used tree may hold stale;
 * 2. starts the DynamoDB stand-in — the emulator's table thread (emulator/dynamo-thread.ts, built as
 *    dist/emulator/dynamo-thread.js), data under FLEET_DATA_DIR or ./.fleet-data-offline — unless
 *    FLEET_DYNAMODB_ENDPOINT names a table service already, and hands its endpoint to the functions; the
 *    stand-in ends with this process, as under the emulator;
 * 3. hands every FLEET_* variable of the shell to the functions (serverless-offline passes them only what
 *    serverless.yml lists), so the settings of docs/configuration.md apply here as under `npm start`;
 * 4. points the functions' Lambda client at serverless-offline's own Lambda API (`AWS_ENDPOINT_URL_LAMBDA`):
 *    a benchmark run is the dashboard function invoking itself (lib/services/benchmarks/benchmark-launcher),
 *    which here reaches the local function instead of AWS. Run in the background of the request's worker
 *    instead, it would die with that worker, which serverless-offline ends after 60 s idle.
 *
 * The functions create the table on their first call (lib/instance.ts).
 */
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join, resolve } = require('node:path');

/** Where the stand-in keeps its data unless FLEET_DATA_DIR says: apart from `npm start`'s, which may run too. */
const DEFAULT_DATA_DIR = '.fleet-data-offline';

class OfflineSetup {
  constructor(serverless, options, { log }) {
    this.serverless = serverless;
    this.options = options;
    this.log = log;
    this.prepared = false;
    const prepare = () => this.prepare();
    // `serverless offline` runs the `offline:start` event; `serverless offline start` its `init`.
    this.hooks = { 'before:offline:start': prepare, 'before:offline:start:init': prepare };
  }

  async prepare() {
    if (this.prepared) return;
    this.prepared = true;
    const root = this.serverless.serviceDir;
    // The Framework prints its own errors as one sentence, without a stack: these are the user's to act on.
    const fail = (message) => new this.serverless.classes.Error(`offline-setup: ${message}`);
    build(root, this.log, fail);
    const environment = this.serverless.service.provider.environment ?? {};
    this.serverless.service.provider.environment = environment;
    for (const [name, value] of Object.entries(process.env)) {
      if (name.startsWith('FLEET_') && value !== undefined) environment[name] = value;
    }
    Object.assign(environment, this.localLambda());
    const given = process.env.FLEET_DYNAMODB_ENDPOINT;
    if (given !== undefined && given !== '') {
      this.log.notice(`offline-setup: the functions use the DynamoDB at ${given} (FLEET_DYNAMODB_ENDPOINT)`);
      return;
    }
    environment.FLEET_DYNAMODB_ENDPOINT = await startTable(root, this.log, fail);
  }

  /** The variables that send the functions' Lambda calls to serverless-offline's Lambda API. */
  localLambda() {
    const custom = this.serverless.service.custom?.['serverless-offline'] ?? {};
    const host = this.options.host ?? custom.host ?? 'localhost';
    const port = this.options.lambdaPort ?? custom.lambdaPort ?? 3002;
    const variables = { AWS_ENDPOINT_URL_LAMBDA: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}` };
    // The SDK signs every call and serverless-offline checks no signature: with no credentials in the shell
    // (serverless-offline passes the shell's AWS_* through), a local pair lets it sign at all.
    if (process.env.AWS_ACCESS_KEY_ID === undefined && process.env.AWS_PROFILE === undefined) {
      Object.assign(variables, { AWS_ACCESS_KEY_ID: 'offline', AWS_SECRET_ACCESS_KEY: 'offline' });
    }
    return variables;
  }
}

/** Runs scripts/build.mjs in this terminal; a failed build stops the command with its reason. */
function build(root, log, fail) {
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    const how = run.error?.message ?? (run.signal === null ? `exit code ${run.status}` : `signal ${run.signal}`);
    throw fail(`building the bundles (npm run build) failed (${how}); nothing was started`);
  }
  log.notice(`offline-setup: bundles built in ${Date.now() - started} ms`);
}

/** Starts the emulator's table thread and returns its endpoint; if it dies, so does this command. */
async function startTable(root, log, fail) {
  const module = join(root, 'dist', 'emulator', 'dynamo-thread.js');
  if (!existsSync(module)) throw fail(`${module} is missing after the build`);
  const { startDynamoThread } = require(module);
  const dataDir = process.env.FLEET_DATA_DIR ?? DEFAULT_DATA_DIR;
  const table = await startDynamoThread({
    dataDir: dataDir === ':memory:' ? dataDir : resolve(root, dataDir),
    onExit: (reason) => {
      log.error(`offline-setup: stopped: ${reason}; every call to the table would fail`);
      process.exit(1);
    },
  }).catch((error) => {
    const hint = 'FLEET_DATA_DIR picks another folder (:memory: keeps nothing)';
    throw fail(`the DynamoDB stand-in did not start: ${error.message}; ${hint}`);
  });
  const where = dataDir === ':memory:' ? 'in memory' : `data in ${dataDir}`;
  log.notice(`offline-setup: DynamoDB stand-in on ${table.endpoint} (${where}, on a thread of this process)`);
  return table.endpoint;
}

module.exports = OfflineSetup;
