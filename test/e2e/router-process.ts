/**
 * Starts the router the way a user does — the built emulator (`node dist/emulator/main.js` with the
 * Node flags `npm start` gives it) in its own process — on an ephemeral port with an in-memory table,
 * and stops it. With `--demo`, the demo's client traffic is off unless the test sets FLEET_DEMO_TRAFFIC.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { emulatorStart } from '../../emulator/start-command';

export interface RouterProcess {
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything the router printed so far. */
  output(): string;
  stop(): Promise<void>;
}

const root = join(__dirname, '..', '..');
const entry = join(root, 'dist', 'emulator', 'main.js');

export interface StartOptions {
  /** The directory the router runs in (relative data directories are under it); the project root by default. */
  readonly cwd?: string;
  /** Variables of the test defaults to leave out, so the router's own default applies (`FLEET_DATA_DIR`). */
  readonly unset?: readonly string[];
  /** Node flags after `npm start`'s own (e2e/outages: the collector forced with `--expose-gc`). */
  readonly nodeFlags?: readonly string[];
}

/** The router's process: running with the test defaults and `env`, not yet known to listen. */
export function spawnRouter(
  env: Record<string, string> = {},
  args: readonly string[] = [],
  options: StartOptions = {},
): ChildProcess {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run "npm run build" (npm test does) first`);
  const start = emulatorStart(root);
  const variables: Record<string, string> = {
    ...start.env,
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    FLEET_PORT: '0',
    FLEET_DATA_DIR: ':memory:',
    FLEET_POLL_INTERVAL_MS: '250',
    // `--demo`'s own client traffic would change the counts a test asserts: on only where a test asks.
    FLEET_DEMO_TRAFFIC: 'false',
    ...env,
  };
  for (const name of options.unset ?? []) delete variables[name];
  return spawn(process.execPath, [...start.nodeFlags, ...(options.nodeFlags ?? []), entry, ...args], {
    cwd: options.cwd ?? root,
    env: variables,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function startRouter(
  env: Record<string, string> = {},
  args: readonly string[] = [],
  options: StartOptions = {},
): Promise<RouterProcess> {
  const child = spawnRouter(env, args, options);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`router did not start in 15 s:\n${output}`)), 15_000);
    const onData = () => {
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`router exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Retries `check` until it stops throwing (the router's snapshot is up to a second old by design). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Waits until the router's `/api/tags` lists `model`: a listed node was polled and its models are routable. */
export async function waitForModel(url: string, model: string, timeoutMs = 15_000): Promise<void> {
  await eventually(async () => {
    const tags = (await (await fetch(`${url}/api/tags`)).json()) as { models: { name: string }[] };
    expect(tags.models.map((entry) => entry.name)).toContain(model);
  }, timeoutMs);
}
