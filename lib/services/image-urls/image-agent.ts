/**
 * The HTTP client of client-named image URLs (issue 19 item 3): an undici Agent whose every connection —
 * the first request and each redirect alike — goes to an address ./image-destination judged, by IP, with
 * the URL's host kept for the `Host` header and TLS (SNI and certificate check). Its own timeouts bound
 * each request whatever happens to the caller's signal. One per `fetchImages` call, closed after it.
 */
import type { Agent } from 'undici';
import type { ImageDestination, ResolvedAddress } from './image-destination';

type Undici = typeof import('undici');
type Connector = ReturnType<Undici['buildConnector']>;

export function createImageAgent(destination: ImageDestination, timeoutMs: number): Agent {
  const { Agent: UndiciAgent, buildConnector }: Undici = require('undici');
  const direct = buildConnector({ timeout: timeoutMs });
  /** Each judged address in turn until one connects; the last one's error if none does. */
  const connectAny = (
    options: Parameters<Connector>[0],
    addresses: readonly ResolvedAddress[],
    callback: Parameters<Connector>[1],
  ): void => {
    const [first, ...rest] = addresses;
    if (first === undefined) {
      callback(new Error(`${options.hostname} has no address to connect to`), null);
      return;
    }
    direct({ ...options, hostname: first.address }, (...result) => {
      if (result[0] === null || rest.length === 0) callback(...result);
      else connectAny(options, rest, callback);
    });
  };
  const connect: Connector = (options, callback) => {
    destination(options.hostname).then(
      (addresses) => connectAny(options, addresses, callback),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
  return new UndiciAgent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: 8 });
}
