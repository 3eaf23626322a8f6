/**
 * A request that falls back to a model which thinks differently from the one asked for: the fallback
 * gets `think` and the output budget as its own translation would give them (Ollama answers 400 to
 * `think` on a model that cannot think; a model that does not think must keep the client's budget).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { raiseThinkingBudget } from '../../../../lib/core/protocols/thinking-budget';
import { serveAnthropicMessages } from '../../../../lib/features/chat/anthropic-messages';
import { serveOpenAIChat } from '../../../../lib/features/chat/openai-chat';
import { serveResponses } from '../../../../lib/features/chat/responses-chat';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink, type ResponseSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { makeLoadedModel, makeNodeModel } from '../../../helpers/factories';
import { type ScriptedNode, type ScriptedNodesFixture, startScriptedNodes } from '../../../helpers/scripted-nodes';
import { withServices } from '../../../helpers/with-services';

const THINKER = 'gpt-oss:20b';
const PLAIN = 'llama3.2:3b';

interface NodeBody {
  readonly model: string;
  readonly think?: unknown;
  readonly options?: { readonly num_predict?: number };
}

/** What each node was sent, in order. */
const received: Record<string, NodeBody[]> = { thinker: [], plain: [] };

const answerWith =
  (name: 'thinker' | 'plain', status: number): ScriptedNode['answer'] =>
  (_request, response, body) => {
    const sent = JSON.parse(body) as NodeBody;
    received[name]?.push(sent);
    response.writeHead(status, { 'content-type': 'application/json' });
    if (status >= 500) return void response.end('{"error":"busy"}');
    response.end(
      JSON.stringify({
        model: sent.model,
        message: { role: 'assistant', content: 'ok' },
        done: true,
        done_reason: 'stop',
        prompt_eval_count: 3,
        eval_count: 1,
      }),
    );
  };

let fixture: ScriptedNodesFixture;

beforeAll(async () => {
  fixture = await startScriptedNodes(
    'fallback-thinking',
    [
      {
        record: {
          id: 'thinker',
          models: [makeNodeModel({ name: THINKER, capabilities: ['completion', 'tools', 'thinking'] })],
          loaded: [makeLoadedModel({ name: THINKER })],
        },
        // The thinking model's node fails, so its requests fall back.
        answer: answerWith('thinker', 503),
      },
      {
        record: {
          id: 'plain',
          models: [makeNodeModel({ name: PLAIN, capabilities: ['completion', 'tools'] })],
          loaded: [makeLoadedModel({ name: PLAIN })],
        },
        answer: answerWith('plain', 200),
      },
      // The thinker fails every case on purpose: ejecting it would skip it in the cases after the third.
    ],
    { FLEET_EJECT_AFTER_FAILURES: '0' },
  );
});

afterAll(async () => {
  await fixture.close();
});

type Route = (request: ReturnType<typeof toHttpRequest>, response: ResponseSink) => Promise<void>;

async function serve(route: Route, path: string, body: object) {
  received['thinker'] = [];
  received['plain'] = [];
  const { sink, result } = createBufferedSink();
  await route(toHttpRequest(makeHttpEvent({ method: 'POST', path, body })), sink);
  return result();
}

const messages = [{ role: 'user', content: 'hi' }];

describe('a fallback to a model that does not think', () => {
  it('openai: gets no think and the client’s max_tokens, after the thinker got both', async () => {
    const reply = await serve(withServices(serveOpenAIChat), '/v1/chat/completions', {
      model: THINKER,
      fallback_models: [PLAIN],
      reasoning_effort: 'high',
      max_tokens: 20,
      messages,
    });

    expect(reply.statusCode).toBe(200);
    expect(reply.headers['x-fleet-fallback']).toBe(PLAIN);
    expect(received['thinker']?.[0]).toMatchObject({
      think: 'high',
      options: { num_predict: raiseThinkingBudget(20) },
    });
    const [sent] = received['plain'] ?? [];
    expect(sent).toBeDefined();
    expect(sent?.think).toBeUndefined();
    expect(sent?.options?.num_predict).toBe(20);
    expect(reply.headers['x-budget-used']).toBe('1/20');
  });

  it.each([
    [
      'responses: reasoning.effort and max_output_tokens',
      serveResponses,
      '/v1/responses',
      { reasoning: { effort: 'high' }, max_output_tokens: 30, input: 'hi', store: false },
      30,
    ],
    [
      'anthropic: adaptive thinking and max_tokens',
      serveAnthropicMessages,
      '/v1/messages',
      { thinking: { type: 'adaptive' }, max_tokens: 40, messages },
      40,
    ],
  ] as const)('%s: the same', async (_name, route, path, fields, budget) => {
    const reply = await serve(withServices(route), path, { model: THINKER, fallback_models: [PLAIN], ...fields });

    expect(reply.statusCode).toBe(200);
    const [sent] = received['plain'] ?? [];
    expect(sent).toBeDefined();
    expect(sent?.think).toBeUndefined();
    expect(sent?.options?.num_predict).toBe(budget);
  });
});

describe('a fallback to a model that thinks', () => {
  it('openai: gets the raised budget the requested model would not have had', async () => {
    // The plain model is unknown to the fleet under this name, so the thinker is the fallback.
    const served = serve(withServices(serveOpenAIChat), '/v1/chat/completions', {
      model: 'nobody-has-this:1b',
      fallback_models: [THINKER],
      max_tokens: 20,
      messages,
    });

    // The thinker's node fails: what matters is what it was sent.
    await expect(served).rejects.toMatchObject({ status: 503 });
    expect(received['thinker']?.[0]?.options?.num_predict).toBe(raiseThinkingBudget(20));
  });
});
