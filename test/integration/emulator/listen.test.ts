import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { describeListenError, listen } from '../../../emulator/listen';

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) if (server.listening) await new Promise((resolve) => server.close(resolve));
});

function server(): Server {
  const created = createServer();
  servers.push(created);
  return created;
}

describe('listen', () => {
  it('resolves once the server listens', async () => {
    const first = server();
    await listen(first, 0, '127.0.0.1');
    expect(first.listening).toBe(true);
  });

  it('rejects a port already taken with a sentence naming it and FLEET_PORT', async () => {
    const first = server();
    await listen(first, 0, '127.0.0.1');
    const address = first.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;

    await expect(listen(server(), port, '127.0.0.1')).rejects.toThrow(
      new RegExp(`^port ${port} is already in use on 127\\.0\\.0\\.1 .*FLEET_PORT`),
    );
  });
});

describe('describeListenError', () => {
  const failure = (code: string) => Object.assign(new Error(`listen ${code}`), { code });

  it('names FLEET_PORT for a privileged port and FLEET_HOST for an address the machine lacks', () => {
    expect(describeListenError(failure('EACCES'), '0.0.0.0', 80)).toMatch(/0\.0\.0\.0:80.*FLEET_PORT/);
    expect(describeListenError(failure('EADDRNOTAVAIL'), '10.9.9.9', 11435)).toMatch(/^10\.9\.9\.9 .*FLEET_HOST/);
  });

  it('keeps the system message of anything else', () => {
    expect(describeListenError(failure('EINVAL'), '127.0.0.1', 1)).toBe(
      'could not listen on 127.0.0.1:1: listen EINVAL',
    );
  });
});
