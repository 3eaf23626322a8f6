/**
 * A node that sends a line the router cannot read, after good ones in the same chunk: the stream stops
 * with the family's in-band error (ARCHITECTURE.md §9.4), and the lines before it still reach the client — a
 * chunk is forwarded as far as it was good, never dropped whole.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { serveOllamaChat } from '../../../../lib/features/chat/ollama-chat';
import { serveOpenAIChat } from '../../../../lib/features/chat/openai-chat';
import { getServices, type Services } from '../../../../lib/instance';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink, type ResponseSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { type ScriptedNodesFixture, startOneNode } from '../../../helpers/scripted-nodes';
import { withServices } from '../../../helpers/with-services';

const MODEL = 'llama3.2:3b';

let fixture: ScriptedNodesFixture;
let services: Services;

beforeAll(async () => {
  fixture = await startOneNode('relay-bad-line', MODEL, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const good = JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'hello' }, done: false });
    const bad = JSON.stringify({
      model: MODEL,
      message: { role: 'assistant', content: '' },
      done: true,
      eval_count: 'x',
    });
    response.end(`${good}\n${bad}\n`);
  });
  services = fixture.services;
});

afterAll(async () => {
  await fixture.close();
});

type Route = (request: ReturnType<typeof toHttpRequest>, response: ResponseSink) => Promise<void>;

async function serve(route: Route, path: string, body: object) {
  const statuses: string[] = [];
  const record = jest.spyOn(services.traces, 'record').mockImplementation((trace) => {
    statuses.push(trace.status);
  });
  try {
    const { sink, result } = createBufferedSink();
    await route(toHttpRequest(makeHttpEvent({ method: 'POST', path, body })), sink);
    return { body: result().body, statuses };
  } finally {
    record.mockRestore();
  }
}

describe('a bad node line after good ones in the same chunk', () => {
  it('ollama: the good line, then the error line', async () => {
    const { body, statuses } = await serve(
      (request, sink) => serveOllamaChat(getServices(), request, sink, 'chat'),
      '/api/chat',
      {
        model: MODEL,
        messages: [{ role: 'user', content: 'hi' }],
      },
    );
    const lines = body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message?: { content: string }; error?: string });

    expect(lines.map((line) => line.message?.content ?? 'error')).toEqual(['hello', 'error']);
    expect(lines[1]?.error).toContain('eval_count');
    expect(statuses).toEqual(['incomplete']);
  });

  it('openai: the role and the content, then the error event', async () => {
    const { body, statuses } = await serve(withServices(serveOpenAIChat), '/v1/chat/completions', {
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const events = body
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map(
        (event) =>
          JSON.parse(event.slice('data: '.length)) as {
            choices?: { delta: { content?: string } }[];
            error?: { message: string };
          },
      );

    expect(events.map((event) => event.choices?.[0]?.delta.content ?? '')).toContain('hello');
    expect(events.at(-1)?.error?.message).toContain('eval_count');
    expect(statuses).toEqual(['incomplete']);
  });
});
