/**
 * Runs `serverless offline` as a newcomer does on a fresh clone: the project's sources (no dist/) copied to a
 * temporary folder with its node_modules linked, the command started there with no AWS credentials, a
 * temporary HOME and the Framework's telemetry and notifications off, on free ports. Its own build writes
 * that folder's dist/, never the one the other tests run. Stopping it (SIGTERM) must end it and the DynamoDB
 * stand-in it started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frameworkEnv } from '../helpers/framework-env';
import { cloneProject } from '../helpers/project-copy';

export interface OfflineProcess {
  /** `http://127.0.0.1:<httpPort>`: the API Gateway stand-in. */
  readonly url: string;
  /** `http://127.0.0.1:<lambdaPort>`: the Lambda Invoke API stand-in. */
  readonly lambdaUrl: string;
  /** The project copy it runs in. */
  readonly dir: string;
  readonly process: ChildProcess;
  output(): string;
  /** The endpoint of the DynamoDB stand-in it reported starting (on a thread of its own), if it did. */
  tableEndpoint(): string | undefined;
  stop(): Promise<void>;
}

export interface OfflineOptions {
  /** Variables besides the bare environment (PATH, HOME and the Framework's switches). */
  readonly env?: Record<string, string>;
  /** Edits the copy before the start (a test removing a plugin from serverless.yml). */
  readonly prepare?: (dir: string) => Promise<void>;
  readonly startTimeoutMs?: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port');
  return address.port;
}

export async function startOffline(options: OfflineOptions = {}): Promise<OfflineProcess> {
  const dir = await cloneProject('fleet-offline-');
  await options.prepare?.(dir);
  const home = await mkdtemp(join(tmpdir(), 'fleet-offline-home-'));
  const [httpPort, lambdaPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      join(dir, 'node_modules', 'serverless', 'bin', 'serverless.js'),
      'offline',
      '--host',
      '127.0.0.1',
      '--httpPort',
      String(httpPort),
      '--lambdaPort',
      String(lambdaPort),
      '--noSponsor',
    ],
    {
      cwd: dir,
      env: frameworkEnv(home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await Promise.all([rm(dir, { recursive: true, force: true }), rm(home, { recursive: true, force: true })]);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timeoutMs = options.startTimeoutMs ?? 120_000;
      const timer = setTimeout(
        () => reject(new Error(`serverless offline not ready in ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
      const onData = () => {
        if (!output.includes('Server ready:')) return;
        clearTimeout(timer);
        resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serverless offline exited with ${code}:\n${output}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${httpPort}`,
    lambdaUrl: `http://127.0.0.1:${lambdaPort}`,
    dir,
    process: child,
    output: () => output,
    tableEndpoint: () => /DynamoDB stand-in on (http:\/\/\S+) \(/.exec(output)?.[1],
    stop,
  };
}
