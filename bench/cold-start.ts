/**
 * Cold start of each function bundle (DESIGN budget: ≤ 150 ms): the wall time of
 * `node -e "require('<bundle>')"`, median of several runs, next to bare `node -e 0`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './stats';

function timeNode(script: string, runs: number): number {
  const samples: number[] = [];
  for (let index = 0; index < runs; index += 1) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    if (result.status !== 0) throw new Error(`node -e ${script} failed: ${result.stderr.toString()}`);
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(samples);
}

export interface ColdStart {
  readonly name: string;
  readonly ms: number;
}

export function measureColdStarts(root: string, runs = 9): { baselineMs: number; bundles: ColdStart[] } {
  const dir = join(root, 'dist', 'functions');
  const baselineMs = timeNode('0', runs);
  const bundles = readdirSync(dir).map((name) => ({
    name,
    ms: timeNode(`require(${JSON.stringify(join(dir, name, 'index.js'))})`, runs),
  }));
  return { baselineMs, bundles };
}
