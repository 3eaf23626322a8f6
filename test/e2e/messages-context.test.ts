/**
 * The context layers of `/v1/messages` end to end (anchor §3.8), with thresholds set low: the built
 * emulator, a simulated node whose request log shows what the model was given, and the official SDK.
 * Layer 1 clears old tool results above the trigger and keeps the same cut on the next turn; Layer 2 has
 * a fleet model summarise large old results; Layer 3 answers 413 for what is still over the cap. The
 * same layers serve `/v1/responses` (a Codex session resends its history too).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { CATALOG, type SimNode, type SimRequestRecord, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let node: SimNode;
let router: RouterProcess;
let client: Anthropic;

const CLEARED = '[tool result cleared — not in window of recent context]';

/** `tokens` cl100k tokens: `hello`, then ` hello` (one token each). */
const text = (tokens: number) => `hello${' hello'.repeat(tokens - 1)}`;

/** A conversation of tool rounds, each result `tokens` long, as Claude Code sends it every turn. */
function conversation(opening: string, resultTokens: readonly number[]): Anthropic.MessageParam[] {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: opening }];
  resultTokens.forEach((tokens, round) => {
    const id = `toolu_${opening.length}_${round}`;
    messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { path: `src/${round}.ts` } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text(tokens) }] },
    );
  });
  return messages;
}

/** The tool results of the last chat the node was asked to answer (not a summary request). */
function lastToolResults(): string[] {
  const chats = node.requests.filter((request) => request.path === '/api/chat' && !isSummaryRequest(request));
  const body = chats.at(-1)?.body as { messages: { role: string; content: string }[] };
  return body.messages.filter((message) => message.role === 'tool').map((message) => message.content);
}

function isSummaryRequest(request: SimRequestRecord): boolean {
  if (request.path !== '/api/chat') return false;
  const body = request.body as { stream?: boolean; messages?: { content?: string }[] };
  return body.stream === false && (body.messages?.[0]?.content ?? '').startsWith('You shorten tool output');
}

beforeAll(async () => {
  node = await startSimNode({
    id: 'a',
    models: CATALOG.filter((entry) => ['llama3.2:3b', 'qwen3:8b'].includes(entry.name)),
    loaded: ['llama3.2:3b', 'qwen3:8b'],
    ttftMs: 5,
    tokensPerSecond: 5000,
  });
  router = await startRouter({
    FLEET_NODES: `a=${node.url}`,
    FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '8000',
    FLEET_CONTEXT_COMPACTION: 'true',
    FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS: '2000',
    FLEET_MAX_PROMPT_TOKENS: '12000',
  });
  client = new Anthropic({ baseURL: router.url, apiKey: 'unused', maxRetries: 0 });
  await eventually(async () => {
    const ps = (await (await fetch(`${router.url}/api/ps`)).json()) as { models: { name: string }[] };
    expect(ps.models.map((model) => model.name)).toEqual(expect.arrayContaining(['llama3.2:3b', 'qwen3:8b']));
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
});

describe('the context layers of POST /v1/messages', () => {
  it('clears old tool results once above the trigger, and keeps the same cut on the next turn', async () => {
    // Two large results, then small ones: clearing the two brings the prompt far below the trigger.
    const turn1 = conversation('Fix the failing test.', [5000, 5000, 20, 20, 20]);
    const turn2 = conversation('Fix the failing test.', [5000, 5000, 20, 20, 20, 20]);

    const first = await client.messages
      .create({ model: 'llama3.2:3b', max_tokens: 16, messages: turn1 })
      .withResponse();
    const firstResults = lastToolResults();
    const second = await client.messages
      .create({ model: 'llama3.2:3b', max_tokens: 16, messages: turn2 })
      .withResponse();
    const secondResults = lastToolResults();

    expect(first.response.headers.get('x-fleet-context-cleared')).toBe('2');
    expect(firstResults.slice(0, 2)).toEqual([CLEARED, CLEARED]);
    expect(firstResults.slice(2)).toEqual([text(20), text(20), text(20)]);
    // Judged afresh, the third result (now older than the newest three) would be cleared too: the
    // remembered cut is what keeps it, and with it the prompt's prefix the node has cached.
    expect(second.response.headers.get('x-fleet-context-cleared')).toBe('2');
    expect(secondResults).toEqual([CLEARED, CLEARED, text(20), text(20), text(20), text(20)]);
  });

  it('leaves a conversation below every threshold as it is', async () => {
    const { response } = await client.messages
      .create({ model: 'llama3.2:3b', max_tokens: 16, messages: conversation('Small talk.', [20, 20, 20, 20]) })
      .withResponse();

    expect(response.headers.get('x-fleet-context-cleared')).toBeNull();
    expect(response.headers.get('x-fleet-context-summarised')).toBeNull();
    expect(lastToolResults()).toEqual([text(20), text(20), text(20), text(20)]);
  });

  it('has a fleet model summarise the largest old results when over the compaction budget', async () => {
    const before = node.requests.filter(isSummaryRequest).length;

    const { response } = await client.messages
      .create({
        model: 'llama3.2:3b',
        max_tokens: 16,
        messages: conversation('Summarise me.', [3000, 1600, 20, 20, 20]),
      })
      .withResponse();
    const results = lastToolResults();
    const summaryRequests = node.requests.filter(isSummaryRequest).slice(before);

    expect(response.headers.get('x-fleet-context-summarised')).toBe('2');
    expect(results[0]).toMatch(/^\[summarised 3000→\d+ tokens\]\n\S/);
    expect(results[1]).toMatch(/^\[summarised 1600→\d+ tokens\]\n\S/);
    expect(results.slice(2)).toEqual([text(20), text(20), text(20)]);
    expect(summaryRequests).toHaveLength(2);
    // The largest model loaded, at temperature 0, asked for a whole reply.
    expect(summaryRequests[0]?.body).toMatchObject({ model: 'qwen3:8b', stream: false, options: { temperature: 0 } });
  });

  it('answers 413 request_too_large when the prompt is still over the cap', async () => {
    const error = await client.messages
      .create({ model: 'llama3.2:3b', max_tokens: 16, messages: [{ role: 'user', content: text(13_000) }] })
      .catch((thrown: unknown) => thrown);

    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(413);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: 'error',
      error: {
        type: 'request_too_large',
        message: expect.stringMatching(/^prompt is too long: 13000 tokens > 12000 maximum/),
      },
    });
  });

  it('counts with count_tokens what the cap compares', async () => {
    const counted = await client.messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: text(13_000) }],
    });

    expect(counted.input_tokens).toBe(13_000);
  });
});

describe('the context layers of POST /v1/responses', () => {
  it('clears old function call outputs once above the trigger', async () => {
    const openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Refactor the parser.' }];
    [5000, 5000, 20, 20, 20].forEach((tokens, round) => {
      input.push(
        { type: 'function_call', call_id: `call_${round}`, name: 'shell', arguments: '{"cmd":"cat parser.ts"}' },
        { type: 'function_call_output', call_id: `call_${round}`, output: text(tokens) },
      );
    });

    const { response } = await openai.responses
      .create({ model: 'llama3.2:3b', max_output_tokens: 16, input, store: false })
      .withResponse();

    expect(response.headers.get('x-fleet-context-cleared')).toBe('2');
    expect(lastToolResults()).toEqual([CLEARED, CLEARED, text(20), text(20), text(20)]);
  });
});
