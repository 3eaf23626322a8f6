/**
 * The router under test for one routing-bench run (issue 41 item 3): a fresh process per run, started as
 * `npm start` starts it (its Node flags and environment, emulator/start-command) on the CPU the bench gives
 * the server under test (../pinning), on an in-memory table, with `FLEET_ROUTING_STRATEGY` set to the
 * strategy measured. The `reference` strategy is the reference implementation's scoring in a router of its
 * own (bench/routing/reference-router.ts, built to dist/bench/routing/reference-router.js).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { emulatorStart } from '../../emulator/start-command';
import { onCpuOf } from '../pinning';
import { trackChild } from '../processes';
import { projectRoot } from './project-root';

export const STRATEGIES = ['score', 'least-busy', 'round-robin', 'random', 'reference'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** The strategy the router uses when none is set. */
export const DEFAULT_STRATEGY: Strategy = 'score';

export interface RouterProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

const root = projectRoot();
const ROUTER_ENTRY = join(root, 'dist', 'emulator', 'main.js');
const REFERENCE_ENTRY = join(root, 'dist', 'bench', 'routing', 'reference-router.js');
const START_TIMEOUT_MS = 30_000;
const KEPT_LINES = 40;

/** Whether `strategy` can run here (the reference router is built only once its source exists). */
export function strategyAvailable(strategy: Strategy): boolean {
  return existsSync(strategy === 'reference' ? REFERENCE_ENTRY : ROUTER_ENTRY);
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
}

/** Starts the router with `strategy`; `nodes` is FLEET_NODES (listed nodes), empty when agents join. */
export async function startRouter(strategy: Strategy, nodes: string): Promise<RouterProcess> {
  const start = emulatorStart(root);
  const entry = strategy === 'reference' ? REFERENCE_ENTRY : ROUTER_ENTRY;
  const [command, args] = onCpuOf('server', process.execPath, [...start.nodeFlags, entry]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...start.env,
    FLEET_PORT: '0',
    FLEET_HOST: '127.0.0.1',
    FLEET_DATA_DIR: ':memory:',
    FLEET_NODES: nodes,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  delete env['FLEET_DYNAMODB_ENDPOINT'];
  if (strategy === 'reference') delete env['FLEET_ROUTING_STRATEGY'];
  else env['FLEET_ROUTING_STRATEGY'] = strategy;
  const child = trackChild(spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  const kept: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the router did not start:\n${kept.join('\n')}`)),
      START_TIMEOUT_MS,
    );
    const onLine = (line: string) => {
      kept.push(line);
      if (kept.length > KEPT_LINES) kept.shift();
      const found = /listening on (http:\/\/\S+)/.exec(line);
      if (found?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(found[1]);
    };
    // Both streams are read to the end, so a chatty router never blocks on a full pipe.
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the router exited with ${code}:\n${kept.join('\n')}`));
    });
  });
  return { url, pid: child.pid ?? 0, stop: stopper(child) };
}
