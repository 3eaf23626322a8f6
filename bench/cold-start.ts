/**
 * Cold start of each function bundle (ARCHITECTURE.md §6: ≤ 150 ms): the wall time of
 * `node -e "require('<bundle>')"`, median of several rounds, next to bare `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './stats';

function timeNode(script: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
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
export function measureColdStarts(root: string, rounds = 9): { baselineMs: number; bundles: ColdStart[] } {
  const dir = join(root, 'dist', 'functions');
  const scripts = [
    { name: '', script: '0' },
    ...readdirSync(dir).map((name) => ({ name, script: `require(${JSON.stringify(join(dir, name, 'index.js'))})` })),
  ];
  const samples = scripts.map(() => [] as number[]);
  for (let round = 0; round < rounds; round += 1) {
    for (let step = 0; step < scripts.length; step += 1) {
      const index = (step + round) % scripts.length;
      samples[index]?.push(timeNode(scripts[index]?.script ?? '0'));
    }
  }
  const [baseline = [], ...bundles] = samples;
  return {
    baselineMs: median(baseline),
    bundles: bundles.map((ms, index) => ({ name: scripts[index + 1]?.name ?? '', ms: median(ms) })),
  };
}
