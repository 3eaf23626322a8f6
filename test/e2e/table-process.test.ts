/**
 * The emulator's DynamoDB stand-in runs in a process of its own (ARCHITECTURE.md §3.4), bound to the
 * router's life: it serves the table from a child of the router, keeps the data dir across a restart,
 * refuses a data dir another emulator holds, goes away with the router even on SIGKILL, and its death
 * stops the router with a message. Reads /proc, so it runs on Linux.
 */

import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { type SimAgent, startSimAgent } from '../../emulator/sim';
import { createDynamoClient } from '../../lib/services/store/client';
import { dynamoSdk } from '../../lib/services/store/sdk';
import { eventually, type RouterProcess, spawnRouter, startRouter } from './router-process';

const cleanups: (() => Promise<void> | void)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function freshDataDir(): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-table-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

async function router(env: Record<string, string>): Promise<RouterProcess> {
  const started = await startRouter(env);
  cleanups.push(() => started.stop());
  return started;
}

async function agentFor(url: string, nodeId: string): Promise<SimAgent> {
  const agent = await startSimAgent({ nodeId, routerUrl: url, intervalMs: 60_000 });
  cleanups.push(() => agent.stop());
  return agent;
}

async function nodeIds(url: string): Promise<string[]> {
  const response = await fetch(`${url}/fleet/status`);
  const body = (await response.json()) as { nodes: { node_id: string }[] };
  return body.nodes.map((node) => node.node_id);
}

/** /proc/<pid>/stat's fields after the command's closing parenthesis: state, ppid, … */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function running(pid: number): boolean {
  try {
    // A zombie has exited; only its parent has yet to read its status.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The router's one child process, the one running the table bundle. */
function tableProcessOf(routerPid: number): number {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => parentOf(pid) === routerPid && running(pid));
  const tables = children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('table.js'));
  expect(tables).toHaveLength(1);
  return tables[0] ?? 0;
}

/** The TCP ports `pid` listens on: its sockets' inodes matched against /proc/net/tcp's LISTEN rows. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1] !== undefined) inodes.add(match[1]);
    } catch {
      // The descriptor closed while we read the folder.
    }
  }
  const ports: number[] = [];
  for (const file of ['tcp', 'tcp6']) {
    for (const line of readFileSync(`/proc/${pid}/net/${file}`, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state === '0A' && inode !== undefined && inodes.has(inode) && local !== undefined) {
        ports.push(Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
      }
    }
  }
  return ports;
}

async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

function exitOf(started: RouterProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { process: child } = started;
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('the table process', () => {
  it('serves the table from a child of the router, on a port the router does not hold', async () => {
    const started = await router({ FLEET_DATA_DIR: freshDataDir(), FLEET_TABLE: 'fleet-own-process' });
    const routerPid = started.process.pid ?? 0;

    const tablePid = tableProcessOf(routerPid);
    const tablePorts = listeningPorts(tablePid);
    const routerPorts = listeningPorts(routerPid);

    expect(tablePorts).toHaveLength(1);
    expect(routerPorts).toContain(Number(new URL(started.url).port));
    expect(routerPorts).not.toContain(tablePorts[0]);
    const client = createDynamoClient({ dynamodbEndpoint: `http://127.0.0.1:${String(tablePorts[0])}` });
    const listed = await client.send(new (dynamoSdk().ListTablesCommand)({}));
    expect(listed.TableNames).toContain('fleet-own-process');
  }, 30_000);

  it('keeps what the router wrote across a restart, and its process ends with the router', async () => {
    const dataDir = freshDataDir();
    const first = await router({ FLEET_DATA_DIR: dataDir });
    const firstTable = tableProcessOf(first.process.pid ?? 0);
    await (await agentFor(first.url, 'kept-by-the-table')).sendHeartbeat();
    await eventually(async () => expect(await nodeIds(first.url)).toEqual(['kept-by-the-table']));

    await first.stop();
    const stoppedCleanly = !running(firstTable);
    const second = await router({ FLEET_DATA_DIR: dataDir });

    expect(stoppedCleanly).toBe(true);
    expect(await exitOf(first)).toEqual({ code: 0, signal: null });
    expect(await nodeIds(second.url)).toEqual(['kept-by-the-table']);
  }, 30_000);

  it('refuses, with a message and a non-zero exit, a data dir another emulator is using', async () => {
    const dataDir = freshDataDir();
    await router({ FLEET_DATA_DIR: dataDir });

    const second = spawnRouter({ FLEET_DATA_DIR: dataDir });
    let output = '';
    second.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));

    expect(code).toBe(1);
    expect(output).toMatch(
      /Fleet Router did not start: cannot open the DynamoDB data in .* \(is another emulator using it\?\)/,
    );
  }, 30_000);

  it('leaves no table process behind when the router is killed with SIGKILL', async () => {
    const started = await router({ FLEET_DATA_DIR: freshDataDir() });
    const tablePid = tableProcessOf(started.process.pid ?? 0);

    started.process.kill('SIGKILL');
    await exitOf(started);

    expect(await gone(tablePid, 5000)).toBe(true);
  }, 30_000);

  it('stops the router with a message on stderr when the table process dies', async () => {
    const started = await router({ FLEET_DATA_DIR: ':memory:' });
    const tablePid = tableProcessOf(started.process.pid ?? 0);

    process.kill(tablePid, 'SIGKILL');
    const exit = await exitOf(started);

    expect(exit).toEqual({ code: 1, signal: null });
    await eventually(async () =>
      expect(started.output()).toContain(
        `Fleet Router stopped: the DynamoDB stand-in (table process ${String(tablePid)}) exited on SIGKILL`,
      ),
    );
  }, 30_000);
});
