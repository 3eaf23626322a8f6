/**
 * A thinking model gets a raised output budget (thinking-budget.ts), but the client never gets more
 * visible tokens than it asked for: the reply is cut at the client's budget, ends with the family's
 * length reason (one terminal event), reports no more visible tokens than the budget, and the node's
 * stream is cancelled. Anthropic clients see thinking only when they asked for it, signed; a signed
 * block echoed back is accepted.
 */

import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { thinkingSignature } from '../../../../lib/core/protocols/anthropic/thinking-signature';
import { raiseThinkingBudget } from '../../../../lib/core/protocols/thinking-budget';
import { countTokens } from '../../../../lib/core/tokens/count-tokens';
import { serveAnthropicMessages } from '../../../../lib/features/chat/anthropic-messages';
import { serveOpenAIChat } from '../../../../lib/features/chat/openai-chat';
import { serveResponses } from '../../../../lib/features/chat/responses-chat';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink, type ResponseSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { makeLoadedModel, makeNodeModel } from '../../../helpers/factories';
import { type ScriptedNodesFixture, startScriptedNodes } from '../../../helpers/scripted-nodes';
import { withServices } from '../../../helpers/with-services';

const THINKER = 'qwen3:8b';
/** What the node thinks, a line per token, before it answers. */
const THINKING_LINES = 40;
/** What the node would answer: far more than any budget below (each ` word` is one token). */
const ANSWER_LINES = 600;

interface NodeCall {
  readonly body: {
    readonly think?: unknown;
    readonly stream?: boolean;
    readonly options?: { readonly num_predict?: number };
  };
  /** Resolves when the node's response closed, with whether it had sent its last line. */
  readonly closed: Promise<{ readonly finished: boolean }>;
}

let calls: NodeCall[] = [];
let fixture: ScriptedNodesFixture;

const line = (fields: object) =>
  `${JSON.stringify({ model: THINKER, created_at: '2026-01-01T00:00:00Z', ...fields })}\n`;

/** Streams its thinking and a long answer, then stays open (a stream that is not cancelled never ends). */
function streamLong(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for (let i = 0; i < THINKING_LINES; i++)
    response.write(line({ message: { role: 'assistant', content: '', thinking: ' hmm' }, done: false }));
  for (let i = 0; i < ANSWER_LINES; i++)
    response.write(line({ message: { role: 'assistant', content: ' word' }, done: false }));
}

/** The whole reply in one object, as a node answers `stream: false`: within the raised budget, past the client's. */
function answerWhole(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    line({
      message: { role: 'assistant', content: ' word'.repeat(ANSWER_LINES), thinking: ' hmm'.repeat(THINKING_LINES) },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 9,
      eval_count: THINKING_LINES + ANSWER_LINES,
    }),
  );
}

beforeAll(async () => {
  fixture = await startScriptedNodes('thinking-visible-budget', [
    {
      record: {
        id: 'gpu1',
        models: [makeNodeModel({ name: THINKER, capabilities: ['completion', 'tools', 'thinking'] })],
        loaded: [makeLoadedModel({ name: THINKER })],
      },
      answer: (_request, response, raw) => {
        const body = JSON.parse(raw) as NodeCall['body'];
        let finished = false;
        response.on('finish', () => {
          finished = true;
        });
        const closed = new Promise<{ finished: boolean }>((resolve) =>
          response.on('close', () => resolve({ finished })),
        );
        calls.push({ body, closed });
        if (body.stream === true) streamLong(response);
        else answerWhole(response);
      },
    },
  ]);
});

afterAll(async () => {
  await fixture.close();
});

beforeEach(() => {
  calls = [];
});

type Route = (request: ReturnType<typeof toHttpRequest>, response: ResponseSink) => Promise<void>;

async function serve(route: Route, path: string, body: object) {
  const { sink, result } = createBufferedSink();
  await route(toHttpRequest(makeHttpEvent({ method: 'POST', path, body })), sink);
  return result();
}

/** The `data:` payloads of an SSE body (without `[DONE]`), parsed. */
function sseData(body: string): Record<string, unknown>[] {
  return body
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice('data: '.length)) as Record<string, unknown>);
}

const BUDGET = 50;
const messages = [{ role: 'user', content: 'Tell me everything.' }];

/** The node got the raised budget and was asked to stream (whatever the client asked), and was cancelled. */
async function expectRaisedAndCancelled(): Promise<void> {
  expect(calls).toHaveLength(1);
  expect(calls[0]?.body).toMatchObject({ stream: true, options: { num_predict: raiseThinkingBudget(BUDGET) } });
  await expect(calls[0]?.closed).resolves.toEqual({ finished: false });
}

describe('openai chat completions on a thinking model with max_tokens', () => {
  it('streaming: cuts the answer at the budget, finishes with length once, and cancels the node', async () => {
    const reply = await serve(withServices(serveOpenAIChat), '/v1/chat/completions', {
      model: THINKER,
      max_tokens: BUDGET,
      stream: true,
      stream_options: { include_usage: true },
      messages,
    });

    expect(reply.statusCode).toBe(200);
    const chunks = sseData(reply.body) as {
      choices: { delta: { content?: string }; finish_reason: string | null }[];
      usage?: { completion_tokens: number } | null;
    }[];
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(countTokens(text)).toBe(BUDGET);
    const reasons = chunks
      .flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason))
      .filter((r) => r !== null);
    expect(reasons).toEqual(['length']);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(BUDGET);
    expect(reply.body.endsWith('data: [DONE]\n\n')).toBe(true);
    await expectRaisedAndCancelled();
  });

  it('whole: the same cut and reason, usage within the budget, the node streamed and cancelled', async () => {
    const reply = await serve(withServices(serveOpenAIChat), '/v1/chat/completions', {
      model: THINKER,
      max_completion_tokens: BUDGET,
      messages,
    });

    expect(reply.statusCode).toBe(200);
    const body = JSON.parse(reply.body) as {
      choices: { message: { content: string }; finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    expect(countTokens(body.choices[0]?.message.content ?? '')).toBe(BUDGET);
    expect(body.choices[0]?.finish_reason).toBe('length');
    expect(body.usage.completion_tokens).toBe(BUDGET);
    await expectRaisedAndCancelled();
  });
});

describe('responses on a thinking model with max_output_tokens', () => {
  it('streaming: cut at the budget, one response.incomplete for max_output_tokens, the node cancelled', async () => {
    const reply = await serve(withServices(serveResponses), '/v1/responses', {
      model: THINKER,
      max_output_tokens: BUDGET,
      stream: true,
      store: false,
      input: 'Tell me everything.',
    });

    expect(reply.statusCode).toBe(200);
    const events = sseData(reply.body) as { type: string; delta?: string; response?: Record<string, unknown> }[];
    const text = events
      .filter((event) => event.type === 'response.output_text.delta')
      .map((event) => event.delta)
      .join('');
    expect(countTokens(text)).toBe(BUDGET);
    const terminal = events.filter((event) =>
      ['response.completed', 'response.incomplete', 'response.failed'].includes(event.type),
    );
    expect(terminal.map((event) => event.type)).toEqual(['response.incomplete']);
    expect(terminal[0]?.response).toMatchObject({
      incomplete_details: { reason: 'max_output_tokens' },
      usage: { output_tokens: BUDGET },
    });
    await expectRaisedAndCancelled();
  });

  it('whole: incomplete for max_output_tokens, output_tokens within the budget', async () => {
    const reply = await serve(withServices(serveResponses), '/v1/responses', {
      model: THINKER,
      max_output_tokens: BUDGET,
      store: false,
      input: 'Tell me everything.',
    });

    expect(reply.statusCode).toBe(200);
    const body = JSON.parse(reply.body) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: { output_tokens: BUDGET },
    });
    const output = body['output'] as { type: string; content?: { type: string; text?: string }[] }[];
    const text = output
      .flatMap((item) => (item.type === 'message' ? (item.content ?? []) : []))
      .map((part) => part.text ?? '')
      .join('');
    expect(countTokens(text)).toBe(BUDGET);
    await expectRaisedAndCancelled();
  });
});

type AnthropicEvent = {
  type: string;
  index?: number;
  content_block?: { type: string };
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; stop_reason?: string };
  usage?: { output_tokens: number };
};

describe('anthropic messages on a thinking model with max_tokens', () => {
  it('streaming without thinking asked for: text only, cut at the budget, max_tokens once, the node cancelled', async () => {
    const reply = await serve(withServices(serveAnthropicMessages), '/v1/messages', {
      model: THINKER,
      max_tokens: BUDGET,
      stream: true,
      messages,
    });

    expect(reply.statusCode).toBe(200);
    const events = sseData(reply.body) as AnthropicEvent[];
    expect(events.filter((event) => event.content_block?.type === 'thinking')).toEqual([]);
    expect(events.filter((event) => event.delta?.type === 'thinking_delta')).toEqual([]);
    const text = events.map((event) => (event.delta?.type === 'text_delta' ? event.delta.text : '')).join('');
    expect(countTokens(text)).toBe(BUDGET);
    const deltas = events.filter((event) => event.type === 'message_delta');
    expect(deltas.map((event) => event.delta?.stop_reason)).toEqual(['max_tokens']);
    expect(deltas[0]?.usage?.output_tokens).toBe(BUDGET);
    expect(events.filter((event) => event.type === 'message_stop')).toHaveLength(1);
    await expectRaisedAndCancelled();
  });

  it('whole without thinking asked for: no thinking block, max_tokens, output_tokens within the budget', async () => {
    const reply = await serve(withServices(serveAnthropicMessages), '/v1/messages', {
      model: THINKER,
      max_tokens: BUDGET,
      messages,
    });

    expect(reply.statusCode).toBe(200);
    const body = JSON.parse(reply.body) as {
      content: { type: string; text?: string }[];
      stop_reason: string;
      usage: { output_tokens: number };
    };
    expect(body.content.map((block) => block.type)).toEqual(['text']);
    expect(countTokens(body.content[0]?.text ?? '')).toBe(BUDGET);
    expect(body.stop_reason).toBe('max_tokens');
    expect(body.usage.output_tokens).toBe(BUDGET);
    await expectRaisedAndCancelled();
  });

  it('thinking switched off, a model that thinks anyway: no thinking block', async () => {
    const reply = await serve(withServices(serveAnthropicMessages), '/v1/messages', {
      model: THINKER,
      max_tokens: BUDGET,
      thinking: { type: 'disabled' },
      messages,
    });

    expect(reply.statusCode).toBe(200);
    const body = JSON.parse(reply.body) as { content: { type: string }[] };
    expect(body.content.map((block) => block.type)).toEqual(['text']);
  });

  it('streaming with thinking asked for: a thinking block ended by its signature_delta', async () => {
    const reply = await serve(withServices(serveAnthropicMessages), '/v1/messages', {
      model: THINKER,
      max_tokens: BUDGET,
      thinking: { type: 'adaptive' },
      stream: true,
      messages,
    });

    const events = sseData(reply.body) as AnthropicEvent[];
    const thinking = events.filter((event) => event.index === 0 && event.type !== 'content_block_start');
    expect(thinking.slice(-2).map((event) => event.delta?.type ?? event.type)).toEqual([
      'signature_delta',
      'content_block_stop',
    ]);
    const streamed = thinking.map((event) => event.delta?.thinking ?? '').join('');
    expect(streamed).toBe(' hmm'.repeat(THINKING_LINES));
    expect(thinking.at(-2)?.delta?.signature).toBe(thinkingSignature(streamed));
    await expectRaisedAndCancelled();
  });

  it('whole with thinking asked for: a signed thinking block, accepted when the client echoes it', async () => {
    const reply = await serve(withServices(serveAnthropicMessages), '/v1/messages', {
      model: THINKER,
      max_tokens: BUDGET,
      thinking: { type: 'adaptive' },
      messages,
    });
    const body = JSON.parse(reply.body) as { content: { type: string; thinking?: string; signature?: string }[] };
    const [block] = body.content;
    expect(block).toEqual({
      type: 'thinking',
      thinking: ' hmm'.repeat(THINKING_LINES),
      signature: thinkingSignature(' hmm'.repeat(THINKING_LINES)),
    });

    const followUp = await serve(withServices(serveAnthropicMessages), '/v1/messages', {
      model: THINKER,
      max_tokens: BUDGET,
      thinking: { type: 'adaptive' },
      messages: [...messages, { role: 'assistant', content: body.content }, { role: 'user', content: 'Go on.' }],
    });

    expect(followUp.statusCode).toBe(200);
    const sent = calls[1]?.body as { messages?: { role: string; thinking?: string }[] } | undefined;
    expect(sent?.messages?.find((message) => message.role === 'assistant')?.thinking).toBe(block?.thinking);
  });
});
