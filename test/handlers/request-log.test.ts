/**
 * The operator's log (issue 19 item 8): every request that fails — in band after the first byte too —
 * leaves exactly one structured line with its path, node, model, request id and the technical cause,
 * and the same failure repeated is one line per 10 s with the count of those suppressed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { routes as ollamaRoutes } from '../../functions/ollama';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { createLogger, type LogLevel, useLogger } from '../../lib/services/platform/logger';
import { makeHttpEvent } from '../helpers/events';
import { type ScriptedNodesFixture, startOneNode } from '../helpers/scripted-nodes';

const MODEL = 'llama3.2:3b';

let fixture: ScriptedNodesFixture;
let mode: 'bad-line' | 'fail' = 'bad-line';
let lines: { level: LogLevel; fields: Record<string, unknown> }[];

beforeAll(async () => {
  fixture = await startOneNode('request-log', MODEL, (_request, response) => {
    if (mode === 'fail') {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error":"CUDA error at /opt/ollama/llama.cpp:1234"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const good = JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'hello' }, done: false });
    response.end(`${good}\nnot json at all\n`);
  });
});

afterAll(async () => {
  await fixture.close();
});

let previous: ReturnType<typeof useLogger>;
beforeEach(() => {
  lines = [];
  // A fixed clock: every line the test causes falls in one rate-limit window.
  previous = useLogger(
    createLogger({
      now: () => 0,
      write: (level, line) => lines.push({ level, fields: JSON.parse(line) as Record<string, unknown> }),
    }),
  );
});

afterEach(() => {
  useLogger(previous);
});

const chat = (stream: boolean) =>
  makeHttpEvent({
    method: 'POST',
    path: '/api/chat',
    body: { model: MODEL, stream, messages: [{ role: 'user', content: 'hi' }] },
  });

describe('the log line of a failed request', () => {
  it('is written once for a stream that failed after the first byte, as a warning naming node, model and request', async () => {
    mode = 'bad-line';
    const event = chat(true);

    const reply = await createBufferedHandler(ollamaRoutes(fixture.services))(event);

    expect(reply.statusCode).toBe(200);
    expect(reply.body).toContain('"error"');
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: expect.objectContaining({
          msg: 'request incomplete',
          path: '/api/chat',
          status: 200,
          node: 'gpu1',
          model: MODEL,
          requestId: event.requestContext.requestId,
        }),
      },
    ]);
  });

  it("is written once for a 503, whose body never shows the node's output", async () => {
    mode = 'fail';

    const reply = await createBufferedHandler(ollamaRoutes(fixture.services))(chat(false));

    expect(reply.statusCode).toBe(503);
    expect(reply.body).not.toContain('CUDA');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.level).toBe('warn');
    expect(lines[0]?.fields).toMatchObject({ msg: 'request failed', path: '/api/chat', status: 503 });
  });

  it('is one line for the same failure repeated within 10 s', async () => {
    mode = 'fail';

    for (let round = 0; round < 5; round += 1) await createBufferedHandler(ollamaRoutes(fixture.services))(chat(false));

    expect(lines).toHaveLength(1);
  });
});
