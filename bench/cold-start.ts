/**
 * Cold start of each function bundle (ARCHITECTURE.md §6: ≤ 150 ms): the wall time of
 * `node -e "require('<bundle>')"`, median of several rounds, next to bare `node -e 0`.
 *
 * Node starts as a Lambda starts it: without the host's `NODE_EXTRA_CA_CERTS`. Node reads and parses that
 * file before any code runs (+50–95 ms on every start on a host that points it at the system's CA list,
 * measured 2026-11-26), and a Lambda on Node 20 sets it only when the function's own configuration does;
 * ours does not (serverless.yml), as it does not call out over TLS with a private CA.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './stats';

/** The host's environment, less what a Lambda's Node does not get unless its function asks for it. */
export function lambdaStartEnv(host: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...host, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  delete env['NODE_EXTRA_CA_CERTS'];
  return env;
}

function timeNode(script: string, env: NodeJS.ProcessEnv): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['-e', script], { env });
  if (result.status !== 0) throw new Error(`node -e ${script} failed: ${result.stderr.toString()}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export interface ColdStart {
  readonly name: string;
  readonly ms: number;
}

/**
 * Bare node and every bundle, once each per round, in an order that turns every round: the host's
 * slow spells then fall on all of them alike rather than on whichever was measured during one.
 */
export function measureColdStarts(
  root: string,
  rounds = 9,
): { baselineMs: number; bundles: ColdStart[]; hostBaselineMs: number | undefined } {
  const env = lambdaStartEnv(process.env);
  const dir = join(root, 'dist', 'functions');
  const scripts = [
    { name: '', script: '0' },
    ...readdirSync(dir).map((name) => ({ name, script: `require(${JSON.stringify(join(dir, name, 'index.js'))})` })),
  ];
  const samples = scripts.map(() => [] as number[]);
  for (let round = 0; round < rounds; round += 1) {
    for (let step = 0; step < scripts.length; step += 1) {
      const index = (step + round) % scripts.length;
      samples[index]?.push(timeNode(scripts[index]?.script ?? '0', env));
    }
  }
  const [baseline = [], ...bundles] = samples;
  // What the host's own variable costs, for the report: bare node with the host's environment as it is.
  const hostBaselineMs =
    process.env['NODE_EXTRA_CA_CERTS'] === undefined
      ? undefined
      : median(Array.from({ length: rounds }, () => timeNode('0', process.env)));
  return {
    hostBaselineMs,
    baselineMs: median(baseline),
    bundles: bundles.map((ms, index) => ({ name: scripts[index + 1]?.name ?? '', ms: median(ms) })),
  };
}
