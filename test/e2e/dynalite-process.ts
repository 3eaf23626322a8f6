/**
 * An external DynamoDB stand-in in a process of its own (dynalite, in memory), for the router to reach
 * through FLEET_DYNAMODB_ENDPOINT: unlike the emulator's embedded one, a test can stop it (SIGSTOP: the
 * table hangs, connections stay open), resume it, and read what the router wrote.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface DynaliteProcess {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Freezes the process: every table call hangs until `resume`. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

const root = join(__dirname, '..', '..');

const SCRIPT = `
const server = require('dynalite')({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.listen(0, '127.0.0.1', () => console.log('dynalite on ' + server.address().port));
`;

export async function startDynaliteProcess(): Promise<DynaliteProcess> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT], {
    cwd: root,
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dynalite did not start in 10 s:\n${output}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /dynalite on (\d+)/.exec(output);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`dynalite exited with ${code}:\n${output}`));
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await exited;
    },
  };
}
