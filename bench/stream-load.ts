/**
 * Many long streams at once through one target (issue 42): `streams` chat requests in one style, each on a
 * connection of its own, started evenly over `spreadMs` — one chunk interval, so the node's timers do not
 * all fire on the same tick, as no two real generations are in step — and read to the end. Each stream's
 * first body byte is timed from its send, and its content chunks are stamped as they arrive
 * (./chunk-timeline). The client's own reading is the same for every target.
 */
import { Agent, request } from 'node:http';
import { createChunkTimeline } from './chunk-timeline';

export type StreamStyle = 'ollama' | 'openai';

/** The chat endpoint of each style. */
export const STYLE_PATHS: Readonly<Record<StreamStyle, string>> = {
  ollama: '/api/chat',
  openai: '/v1/chat/completions',
};

export interface StreamRecord {
  readonly status: number;
  /** Send to the first body byte, ms. */
  readonly firstByteMs: number;
  /** Send to the first content chunk, ms. */
  readonly firstChunkMs: number;
  readonly arrivals: readonly number[];
  readonly merged: number;
  readonly outOfOrder: number;
  /** Why the stream did not finish, if it did not. */
  readonly error: string | undefined;
}

function oneStream(url: URL, agent: Agent, body: string): Promise<StreamRecord> {
  return new Promise((resolve) => {
    const timeline = createChunkTimeline();
    const sent = performance.now();
    let firstByteMs = Number.NaN;
    let status = 0;
    const finish = (error: string | undefined) => {
      const { arrivals, merged, outOfOrder } = timeline.summary();
      const firstChunkMs = arrivals[0] === undefined ? Number.NaN : arrivals[0] - sent;
      resolve({ status, firstByteMs, firstChunkMs, arrivals, merged, outOfOrder, error });
    };
    const outgoing = request(
      url,
      { agent, method: 'POST', headers: { 'content-type': 'application/json' } },
      (response) => {
        status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          const at = performance.now();
          if (Number.isNaN(firstByteMs)) firstByteMs = at - sent;
          timeline.push(text, at);
        });
        response.on('end', () => finish(status === 200 ? undefined : `status ${status}`));
        response.on('error', (error) => finish(error.message));
      },
    );
    outgoing.on('error', (error) => finish(error.message));
    outgoing.end(body);
  });
}

/** `streams` streams of `body` to `url`, started evenly over `spreadMs`; resolves when all have ended. */
export async function streamLoad(
  url: string,
  body: string,
  streams: number,
  spreadMs: number,
): Promise<StreamRecord[]> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: false });
  try {
    return await Promise.all(
      Array.from(
        { length: streams },
        (_, index) =>
          new Promise<StreamRecord>((resolve) => {
            setTimeout(() => resolve(oneStream(target, agent, body)), (index * spreadMs) / streams);
          }),
      ),
    );
  } finally {
    agent.destroy();
  }
}
