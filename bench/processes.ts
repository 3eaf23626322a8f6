/** Starting the benchmark's parties in their own processes, each printing its URL on its first line. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { TABLE_THREAD_NAME } from '../emulator/dynamo-thread';
import { emulatorStart } from '../emulator/start-command';
import { moveThreadToCpuOf, moveToCpuOf, onCpuOf } from './pinning';
import { tableThreadOf } from './process-cpu';
import { processTree } from './process-tree';

export interface Started {
  readonly url: string;
  readonly pid: number;
  /** Stops the process and waits (at most 5 s) for it to exit, so it can flush what it holds. */
  stop(): Promise<void>;
}

/** The parties started and still running: what a bench interrupted with Ctrl-C stops on its way out. */
const running = new Set<ChildProcess>();

/** Counts `child` among the parties to stop if the bench is interrupted, until it exits. */
export function trackChild<C extends ChildProcess>(child: C): C {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Stops every party still running at once (SIGTERM), without waiting: the bench is on its way out. */
export function stopRunningChildren(): void {
  for (const child of running) child.kill('SIGTERM');
}

function stopper(child: ChildProcess, signal: NodeJS.Signals): () => Promise<void> {
  return () => {
    if (child.exitCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      setTimeout(resolve, 5000).unref();
    });
    child.kill(signal);
    return exited;
  };
}

function firstMatch(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  const lines = createInterface({ input: child.stdout ?? process.stdin });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start`)), 20_000);
    lines.on('line', (line) => {
      const found = pattern.exec(line);
      if (found?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/**
 * This script again, in the role named by `args` (see main.ts), on the CPU of `cpu`: the server under
 * test's, or the load's (./pinning).
 */
export async function startRole(args: readonly string[], cpu: 'server' | 'load' = 'load'): Promise<Started> {
  const [command, commandArgs] = onCpuOf(cpu, process.execPath, [join(__dirname, 'main.js'), ...args]);
  const child = trackChild(spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'] }));
  const url = await firstMatch(child, /^(http:\/\/\S+)$/, args[0] ?? 'role');
  return { url, pid: child.pid ?? 0, stop: stopper(child, 'SIGTERM') };
}

/** Where the router's table thread runs: on the load's CPU (the default) or beside the router. */
const TABLE_CPU = process.env['BENCH_TABLE_CPU'] === 'server' ? 'server' : 'load';

/** The router as `npm start` runs it (its Node flags included), polling one node. */
export interface RouterSettings {
  readonly nodes: string;
  /** FLEET_NODE_CONCURRENCY; undefined = the router's default (what the node reports, else 1). */
  readonly concurrency: string | undefined;
}

/**
 * `entry` (a script and its arguments) as `npm start` runs the router: its Node flags and environment,
 * on the server under test's CPU (./pinning), from the project's root. `env` adds to that environment;
 * an undefined value takes the variable out. Resolves when a line of its output matches `ready`.
 */
async function startAsRouter(
  entry: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  ready: RegExp,
  what: string,
): Promise<Started> {
  const root = join(__dirname, '..', '..');
  const start = emulatorStart(root);
  const [command, args] = onCpuOf('server', process.execPath, [...start.nodeFlags, ...entry]);
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...start.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const child = trackChild(spawn(command, args, { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'inherit'] }));
  const url = await firstMatch(child, ready, what);
  return { url, pid: child.pid ?? 0, stop: stopper(child, 'SIGTERM') };
}

/**
 * The router on the server under test's CPU, with everything `npm start` runs: its own table thread
 * (FLEET_DYNAMODB_ENDPOINT unset), keeping its data on disk as `npm start` does, in a folder of its own
 * that is removed when the router stops. The table thread inherits the router's CPU; it is moved to the
 * load's, where the table has always run in this bench (it stands for DynamoDB, outside the Lambda), and
 * its CPU is read apart (./process-cpu), so the router's CPU figures are the router's — unless
 * `BENCH_TABLE_CPU=server`, which leaves it beside the router, as `taskset -c N npm start` would. Its
 * memory is the router's process's, counted with it (./rss-window).
 */
export async function startRouterProcess(settings: RouterSettings): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  let started: Started;
  try {
    started = await startAsRouter(
      [join(__dirname, '..', '..', 'dist', 'emulator', 'main.js')],
      {
        FLEET_PORT: '0',
        FLEET_NODES: settings.nodes,
        FLEET_DYNAMODB_ENDPOINT: undefined,
        FLEET_DATA_DIR: dataDir,
        FLEET_POLL_INTERVAL_MS: '1000',
        FLEET_NODE_CONCURRENCY: settings.concurrency,
      },
      /listening on (http:\/\/\S+)/,
      'router',
    );
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  if (TABLE_CPU === 'load') {
    const table = tableThreadOf(started.pid);
    if (table === undefined)
      throw new Error(`the router (pid ${started.pid}) runs no thread named ${TABLE_THREAD_NAME}`);
    moveThreadToCpuOf('load', table);
    const [, ...children] = processTree(started.pid);
    for (const child of children) moveToCpuOf('load', child);
  } else {
    console.log("the router's table thread runs on the router's CPU (BENCH_TABLE_CPU=server)");
  }
  return {
    url: started.url,
    pid: started.pid,
    stop: async () => {
      await started.stop();
      try {
        rmSync(dataDir, { recursive: true, force: true });
      } catch (error) {
        console.warn(`could not remove the router's data folder ${dataDir}: ${String(error)}`);
      }
    },
  };
}

/** The frame relay (./frame-relay), started as the router is: the router's frame without its routing. */
export function startFrameProcess(nodeUrl: string): Promise<Started> {
  return startAsRouter([join(__dirname, 'main.js'), 'serve-frame', nodeUrl], {}, /^(http:\/\/\S+)$/, 'frame relay');
}

/**
 * Interrupted (Ctrl-C) or terminated, a bench stops the parties it started and exits as the signal would
 * have ended it: 128 + the signal's number.
 */
export function stopChildrenOnSignals(): void {
  for (const [signal, number] of [
    ['SIGINT', 2],
    ['SIGTERM', 15],
  ] as const) {
    process.once(signal, () => {
      stopRunningChildren();
      process.exit(128 + number);
    });
  }
}
