/**
 * A newcomer's first minutes (issue 20 item 9): a port already taken is one sentence naming it and
 * FLEET_PORT, not Node's unhandled 'error' stack; and `npm run demo` keeps a table of its own, so a later
 * `npm start` in the same directory does not list the demo's simulated nodes as offline forever.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, spawnRouter, startRouter } from './router-process';

interface StatusBody {
  nodes: { node_id: string; status: string }[];
}

async function fleetNodes(url: string): Promise<StatusBody['nodes']> {
  return ((await (await fetch(`${url}/fleet/status`)).json()) as StatusBody).nodes;
}

describe('a port already taken', () => {
  let taken: Server;
  let port: number;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });

  afterAll(async () => {
    await new Promise((resolve) => taken.close(resolve));
  });

  it('ends npm start with a sentence naming the port and FLEET_PORT, and exit code 1', async () => {
    const child = spawnRouter({ FLEET_PORT: String(port) });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));

    expect(code).toBe(1);
    expect(output).toContain(`port ${port} is already in use`);
    expect(output).toContain('FLEET_PORT');
    expect(output).not.toContain("Unhandled 'error' event");
    expect(output).not.toMatch(/\n\s+at /);
  }, 20_000);
});

describe('the demo and a later npm start in the same directory', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'fleet-first-run-'));

  afterAll(() => {
    rmSync(cwd, { recursive: true, force: true });
  });

  it('keep their tables apart: the demo nodes never show up in npm start', async () => {
    const demo = await startRouter({}, ['--demo'], { cwd, unset: ['FLEET_DATA_DIR'] });
    try {
      await eventually(async () => {
        expect((await fleetNodes(demo.url)).length).toBeGreaterThanOrEqual(3);
      }, 15_000);
    } finally {
      await demo.stop();
    }
    expect(existsSync(join(cwd, '.fleet-data-demo'))).toBe(true);

    const plain = await startRouter({}, [], { cwd, unset: ['FLEET_DATA_DIR'] });
    try {
      expect(await fleetNodes(plain.url)).toEqual([]);
      expect(existsSync(join(cwd, '.fleet-data'))).toBe(true);
    } finally {
      await plain.stop();
    }
  }, 60_000);
});
