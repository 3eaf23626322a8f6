/**
 * Sequential keep-alive latency: one connection per target, one request at a time, each timed with
 * hrtime. The median says what a request costs end to end without queueing; autocannon's
 * whole-millisecond latencies cannot show microseconds.
 */
import { Agent, request } from 'node:http';
import { median } from './stats';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function once(url: URL, body: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        agent,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve());
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Requests a target gets in a row before the next target's turn. */
export const SEQUENTIAL_BLOCK = 50;

/**
 * Median microseconds per request for each target, the targets taking turns in blocks of `block`
 * sequential requests until each has had `count` (after 200 each, uncounted). The turns rotate, so no
 * target always follows the same one. A run of `count` requests to one target after another lets a
 * spell of the host (ARCHITECTURE.md §6.1: 0.5 to 3 s at a different speed) fall on one target's run and
 * not the next; in turns of ~25 ms it falls on every target alike.
 */
export async function interleavedSequentialMicros<Target extends string>(
  targets: readonly (readonly [Target, string])[],
  count: number,
  body?: string,
  block = SEQUENTIAL_BLOCK,
): Promise<Map<Target, number>> {
  const urls = targets.map(([name, target]) => [name, new URL(target)] as const);
  for (const [, url] of urls) for (let index = 0; index < 200; index += 1) await once(url, body);
  const samples = new Map<Target, number[]>(urls.map(([name]) => [name, []]));
  for (let turn = 0, done = 0; done < count; turn += 1, done += block) {
    const size = Math.min(block, count - done);
    for (let offset = 0; offset < urls.length; offset += 1) {
      const [name, url] = urls[(turn + offset) % urls.length] as (typeof urls)[number];
      const taken = samples.get(name) as number[];
      for (let index = 0; index < size; index += 1) {
        const started = process.hrtime.bigint();
        await once(url, body);
        taken.push(Number(process.hrtime.bigint() - started) / 1000);
      }
    }
  }
  return new Map([...samples].map(([name, taken]) => [name, median(taken)]));
}
