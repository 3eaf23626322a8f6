/**
 * Streaming through a target: time to the first body byte and the NDJSON lines that arrived, over
 * sequential requests; the median first byte, and whether every request got every line.
 */
import { Agent, request } from 'node:http';
import { median } from './stats';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function once(url: URL, body: string): Promise<{ firstByteMs: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let firstByteMs = Number.NaN;
    let text = '';
    const outgoing = request(
      url,
      { agent, method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        response.on('data', (chunk: Buffer) => {
          if (Number.isNaN(firstByteMs)) firstByteMs = Number(process.hrtime.bigint() - started) / 1e6;
          text += chunk.toString();
        });
        response.on('end', () =>
          resolve({ firstByteMs, lines: text.split('\n').filter((line) => line !== '').length }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export async function streamProbe(
  target: string,
  body: string,
  count: number,
): Promise<{ firstByteMs: number; minLines: number; maxLines: number }> {
  const url = new URL(target);
  for (let index = 0; index < 20; index += 1) await once(url, body);
  const firstBytes: number[] = [];
  let minLines = Number.POSITIVE_INFINITY;
  let maxLines = 0;
  for (let index = 0; index < count; index += 1) {
    const result = await once(url, body);
    firstBytes.push(result.firstByteMs);
    minLines = Math.min(minLines, result.lines);
    maxLines = Math.max(maxLines, result.lines);
  }
  return { firstByteMs: median(firstBytes), minLines, maxLines };
}
