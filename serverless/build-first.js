/**
 * Serverless Framework v3 plugin: `serverless package` (and `deploy`, which packages first) builds the
 * bundles before zipping them, so a fresh clone packages at all and a used tree never ships the stale
 * bundles an earlier build left in dist/. It runs scripts/build.mjs, the build `npm start` runs.
 */
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

class BuildFirst {
  constructor(serverless) {
    this.hooks = {
      'before:package:createDeploymentArtifacts': () => {
        const script = join(serverless.serviceDir, 'scripts', 'build.mjs');
        const started = Date.now();
        const run = spawnSync(process.execPath, [script], { cwd: serverless.serviceDir, stdio: 'inherit' });
        if (run.status !== 0)
          throw new Error(`scripts/build.mjs failed (exit ${run.status ?? run.signal}): nothing was packaged`);
        serverless.cli.log(`build-first: bundles built in ${Date.now() - started} ms`);
      },
    };
  }
}

module.exports = BuildFirst;
