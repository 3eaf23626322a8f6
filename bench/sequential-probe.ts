/**
 * Sequential keep-alive latency: one connection, one request at a time, each timed with hrtime. The
 * median says what a request costs end to end without queueing; autocannon's whole-millisecond
 * latencies cannot show microseconds.
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

/** Median microseconds per request over `count` sequential requests (after a short warm-up). */
export async function sequentialMedianMicros(target: string, count: number, body?: string): Promise<number> {
  const url = new URL(target);
  for (let index = 0; index < 200; index += 1) await once(url, body);
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const started = process.hrtime.bigint();
    await once(url, body);
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return median(samples);
}
