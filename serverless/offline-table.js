/**
 * Serverless Framework v3 plugin: `serverless offline` runs as `npm start` does, with nothing to set up first
 * (README "Running under serverless-offline"; ARCHITECTURE.md §3.1). Before serverless-offline starts, and on
 * that command only, it
 *
 * 1. builds the bundles (scripts/build.mjs, the build `npm start` runs): the functions run from dist/, which a
 *    fresh clone lacks and a used tree may hold stale;
 * 2. starts the DynamoDB stand-in — the emulator's table process (emulator/dynamo-process.ts, built as
 *    dist/emulator/dynamo-process.js), data under FLEET_DATA_DIR or ./.fleet-data-offline — unless
 *    FLEET_DYNAMODB_ENDPOINT names a table service already, and hands its endpoint to the functions; the
 *    stand-in ends with this process, as under the emulator;
 * 3. hands every FLEET_* variable of the shell to the functions (serverless-offline passes them only what
 *    serverless.yml lists), so the README's settings apply here as under `npm start`.
 *
 * The functions create the table on their first call (lib/instance.ts).
 */
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join, resolve } = require('node:path');

/** Where the stand-in keeps its data unless FLEET_DATA_DIR says: apart from `npm start`'s, which may run too. */
const DEFAULT_DATA_DIR = '.fleet-data-offline';

class OfflineTable {
  constructor(serverless, _options, { log }) {
    this.serverless = serverless;
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
    build(root, this.log);
    const environment = this.serverless.service.provider.environment ?? {};
    this.serverless.service.provider.environment = environment;
    for (const [name, value] of Object.entries(process.env)) {
      if (name.startsWith('FLEET_') && value !== undefined) environment[name] = value;
    }
    const given = process.env.FLEET_DYNAMODB_ENDPOINT;
    if (given !== undefined && given !== '') {
      this.log.notice(`offline-table: the functions use the DynamoDB at ${given} (FLEET_DYNAMODB_ENDPOINT)`);
      return;
    }
    environment.FLEET_DYNAMODB_ENDPOINT = await startTable(root, this.log);
  }
}

/** Runs scripts/build.mjs in this terminal; a failed build stops the command with its reason. */
function build(root, log) {
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) {
    const how = run.error?.message ?? (run.signal === null ? `exit code ${run.status}` : `signal ${run.signal}`);
    throw new Error(`offline-table: building the bundles (npm run build) failed (${how}); nothing was started`);
  }
  log.notice(`offline-table: bundles built in ${Date.now() - started} ms`);
}

/** Starts the emulator's table process and returns its endpoint; if it dies, so does this command. */
async function startTable(root, log) {
  const module = join(root, 'dist', 'emulator', 'dynamo-process.js');
  if (!existsSync(module)) throw new Error(`offline-table: ${module} is missing after the build`);
  const { startDynamoProcess } = require(module);
  const dataDir = process.env.FLEET_DATA_DIR ?? DEFAULT_DATA_DIR;
  const table = await startDynamoProcess({
    dataDir: dataDir === ':memory:' ? dataDir : resolve(root, dataDir),
    onExit: (reason) => {
      log.error(`offline-table: stopped: ${reason}; every call to the table would fail`);
      process.exit(1);
    },
  });
  const where = dataDir === ':memory:' ? 'in memory' : `data in ${dataDir}`;
  log.notice(`offline-table: DynamoDB stand-in on ${table.endpoint} (${where}, pid ${table.pid})`);
  return table.endpoint;
}

module.exports = OfflineTable;
