/**
 * The emulator's DynamoDB stand-in runs on a thread of the router's process (ARCHITECTURE.md §3.4): it
 * serves the table from a thread named `fleet-table` with no child process, keeps the data dir across a
 * restart (closed on the way out), and refuses a data dir another emulator holds. Reads /proc, so it runs
 * on Linux. What the router does when the thread ends is test/integration/emulator/dynamo-thread.test.ts's.
 */

import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { TABLE_THREAD_NAME } from '../../emulator/dynamo-thread';
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

/** The processes whose parent is `pid`, zombies left out. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(parent) === pid && state !== 'Z') children.push(Number(entry));
    } catch {
      // The process ended while /proc was read.
    }
  }
  return children;
}

/** The names of `pid`'s threads (`/proc/<pid>/task/<tid>/comm`). */
function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim());
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

function exitOf(started: RouterProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { process: child } = started;
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('the table thread', () => {
  it('serves the table from a thread of the router named fleet-table, on a port of its own, with no child process', async () => {
    const started = await router({ FLEET_DATA_DIR: freshDataDir(), FLEET_TABLE: 'fleet-own-thread' });
    const routerPid = started.process.pid ?? 0;
    const routerPort = Number(new URL(started.url).port);

    const ports = listeningPorts(routerPid);
    const tablePorts = ports.filter((port) => port !== routerPort);

    expect(childrenOf(routerPid)).toEqual([]);
    expect(threadNames(routerPid)).toContain(TABLE_THREAD_NAME);
    expect(ports).toContain(routerPort);
    expect(tablePorts).toHaveLength(1);
    const client = createDynamoClient({ dynamodbEndpoint: `http://127.0.0.1:${String(tablePorts[0])}` });
    const listed = await client.send(new (dynamoSdk().ListTablesCommand)({}));
    expect(listed.TableNames).toContain('fleet-own-thread');
  }, 30_000);

  it('keeps what the router wrote across a restart: the router closes LevelDB on its way out', async () => {
    const dataDir = freshDataDir();
    const first = await router({ FLEET_DATA_DIR: dataDir });
    await (await agentFor(first.url, 'kept-by-the-table')).sendHeartbeat();
    await eventually(async () => expect(await nodeIds(first.url)).toEqual(['kept-by-the-table']));

    await first.stop();
    // A LevelDB left open would hold the folder's lock: the second router could not start on it.
    const second = await router({ FLEET_DATA_DIR: dataDir });

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
});
