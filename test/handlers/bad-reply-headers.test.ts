/**
 * A node that was chosen and answered 200 with a reply the router cannot read: the client's 502 names
 * that node in `X-Fleet-Node` with the other routing headers known then (issue 19 item 7), in the family's
 * shape, and says nothing of what the node printed beyond the words of the failure.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes as ollamaRoutes } from '../../functions/ollama';
import { routes as openaiRoutes } from '../../functions/openai';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { makeHttpEvent } from '../helpers/events';
import { type ScriptedNodesFixture, startOneNode } from '../helpers/scripted-nodes';

const MODEL = 'llama3.2:3b';

let fixture: ScriptedNodesFixture;

beforeAll(async () => {
  fixture = await startOneNode('bad-reply-headers', MODEL, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('<html>proxy says no</html>\n');
  });
});

afterAll(async () => {
  await fixture.close();
});

describe('a 502 from a node that was chosen', () => {
  it.each([
    ['/api/chat', ollamaRoutes],
    ['/v1/chat/completions', openaiRoutes],
  ] as const)('%s carries X-Fleet-Node, X-Fleet-Model and X-Fleet-Score', async (path, routes) => {
    const event = makeHttpEvent({
      method: 'POST',
      path,
      body: { model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] },
    });

    const reply = await createBufferedHandler(routes(fixture.services))(event);

    expect(reply.statusCode).toBe(502);
    expect(reply.headers['x-fleet-node']).toBe('gpu1');
    expect(reply.headers['x-fleet-model']).toBe(MODEL);
    expect(reply.headers['x-fleet-score']).toBeDefined();
    expect(reply.headers['content-type']).toContain('application/json');
  });
});
