/**
 * Binds the emulator's server to FLEET_HOST:FLEET_PORT, and turns the ways that fails into one sentence a
 * newcomer can act on (the port taken, a privileged port, an address this machine does not have) instead
 * of Node's unhandled 'error' event and its stack.
 */
import type { Server } from 'node:net';

/** Why `listen` failed, in words that name the setting to change. */
export function describeListenError(error: unknown, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is already in use on ${host} (another router, or Ollama?): stop it, or set FLEET_PORT to a free port`;
    case 'EACCES':
      return `not allowed to listen on ${where}: ports below 1024 need privileges; set FLEET_PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine: set FLEET_HOST to one of its addresses, or 0.0.0.0 for all`;
    default:
      return `could not listen on ${where}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Resolves once the server listens; rejects with an Error whose message is `describeListenError`'s. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => reject(new Error(describeListenError(error, host, port)));
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}
