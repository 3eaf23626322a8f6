/**
 * The floor for any Node router (ARCHITECTURE.md §6): node:http in front of an undici pool that forwards
 * method, path, headers and body to one upstream and streams the answer back, parsing nothing. The pool
 * holds as many connections as the router's node client (256), so 250 streams at once each get one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export async function startBareProxy(upstream: string): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new Pool(upstream, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const server: Server = createServer((request, response) => {
    const headers = { ...request.headers };
    delete headers.host;
    delete headers.connection;
    pool
      .request({ method: (request.method ?? 'GET') as 'GET', path: request.url ?? '/', headers, body: request })
      .then(async (reply) => {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(reply.headers)) {
          if (value !== undefined && name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding')
            out[name] = value;
        }
        response.writeHead(reply.statusCode, out);
        for await (const chunk of reply.body) {
          if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve));
        }
        response.end();
      })
      .catch(() => {
        if (!response.headersSent) response.writeHead(502);
        response.end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}
