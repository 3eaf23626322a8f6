/**
 * A TCP proxy in front of a service (the table's stand-in) that can be stopped the way `kill -STOP`
 * stops a process: connections are still accepted, nothing is answered, bytes already under way are
 * held. `resume()` forwards again on new connections; the ones opened while stopped stay silent.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface StoppableProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  stop(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startStoppableProxy(target: string): Promise<StoppableProxy> {
  const { hostname, port } = new URL(target);
  let stopped = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (stopped) {
      client.on('data', () => {});
      return;
    }
    const upstream = connect(Number(port), hostname);
    track(upstream);
    client.on('data', (chunk) => {
      if (!stopped) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!stopped) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    stop: () => {
      stopped = true;
    },
    resume: () => {
      stopped = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
