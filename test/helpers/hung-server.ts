/**
 * A machine that accepts connections and never answers (issue 19 items 1 and 5): a TCP server that reads
 * whatever comes and writes nothing. `close` cuts the connections it holds and stops listening.
 */
import { createServer, type Socket } from 'node:net';

export interface HungServer {
  readonly url: string;
  /** Cuts every connection it holds (a call waiting on it fails at once); it keeps listening. */
  cutConnections(): void;
  close(): Promise<void>;
}

export async function startHungServer(): Promise<HungServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the hung server has no port');
  const cutConnections = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${address.port}`,
    cutConnections,
    close: () => {
      cutConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
