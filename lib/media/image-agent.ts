/**
 * The HTTP client of client-named image URLs (issue 19 item 3): an undici Agent whose every connection —
 * the first request and each redirect alike — goes to an address ./image-destination judged, by IP, with
 * the URL's host kept for the `Host` header and TLS (SNI and certificate check). Its own timeouts bound
 * each request whatever happens to the caller's signal. One per `fetchImages` call, closed after it.
 */
import type { Agent } from 'undici';
import type { ImageDestination } from './image-destination';

type Undici = typeof import('undici');
type Connector = ReturnType<Undici['buildConnector']>;

export function createImageAgent(destination: ImageDestination, timeoutMs: number): Agent {
  const { Agent: UndiciAgent, buildConnector }: Undici = require('undici');
  const direct = buildConnector({ timeout: timeoutMs });
  const connect: Connector = (options, callback) => {
    destination(options.hostname).then(
      ({ address }) => direct({ ...options, hostname: address }, callback),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
  return new UndiciAgent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: 8 });
}
