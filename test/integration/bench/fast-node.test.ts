import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gapsBetween } from '../../../bench/chunk-timeline';
import {
  BENCH_MODEL,
  SLOW_CHUNKS,
  SLOW_INTERVAL_MS,
  SLOW_MODEL,
  STREAM_LINES,
  startFastNode,
} from '../../../bench/fast-node';
import { streamLoad } from '../../../bench/stream-load';

let server: Server;
let url: string;

beforeAll(async () => {
  ({ server, url } = await startFastNode());
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const chat = (path: string, body: object) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the fast node', () => {
  it('lists the fast and the slow-stream model', async () => {
    const tags = (await (await fetch(`${url}/api/tags`)).json()) as { models: { name: string }[] };
    expect(tags.models.map((model) => model.name)).toEqual([BENCH_MODEL, SLOW_MODEL]);
  });

  it("streams Ollama's OpenAI style on /v1/chat/completions: content deltas, a finish, [DONE]", async () => {
    const reply = await chat('/v1/chat/completions', { model: BENCH_MODEL, messages: [], stream: true });
    expect(reply.headers.get('content-type')).toBe('text/event-stream');
    const events = (await reply.text()).split('\n\n').filter((event) => event !== '');
    expect(events).toHaveLength(STREAM_LINES + 1);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
    expect(chunks[0]).toMatchObject({
      object: 'chat.completion.chunk',
      model: BENCH_MODEL,
      choices: [{ delta: { role: 'assistant', content: 'token1 ' }, finish_reason: null }],
    });
    expect(chunks.at(-1)).toMatchObject({ choices: [{ delta: { content: '' }, finish_reason: 'stop' }] });
  });

  it('answers a non-streaming OpenAI request with one chat.completion', async () => {
    const reply = await chat('/v1/chat/completions', { model: BENCH_MODEL, messages: [] });
    expect(await reply.json()).toMatchObject({ object: 'chat.completion', choices: [{ finish_reason: 'stop' }] });
  });

  it(`streams the slow model's ${SLOW_CHUNKS} chunks one by one, ${SLOW_INTERVAL_MS} ms apart, in both styles`, async () => {
    const body = JSON.stringify({ model: SLOW_MODEL, messages: [], stream: true });
    const [ollama, openai] = await Promise.all([
      streamLoad(`${url}/api/chat`, body, 2, 10),
      streamLoad(`${url}/v1/chat/completions`, body, 2, 10),
    ]);
    for (const record of [...(ollama ?? []), ...(openai ?? [])]) {
      expect(record.error).toBeUndefined();
      expect(record.arrivals).toHaveLength(SLOW_CHUNKS);
      expect(record.merged + record.outOfOrder).toBe(0);
      // The n-th chunk is due n - 1 intervals after the first was written, which was after the send: never
      // early, however late a busy machine delivers the first.
      const sent = (record.arrivals[0] ?? 0) - record.firstChunkMs;
      expect((record.arrivals.at(-1) ?? 0) - sent).toBeGreaterThanOrEqual((SLOW_CHUNKS - 1) * SLOW_INTERVAL_MS - 1);
      expect(Math.min(...gapsBetween(record.arrivals))).toBeGreaterThanOrEqual(0);
    }
  }, 15_000);
});
