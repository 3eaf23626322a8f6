import { describe, expect, it } from '@jest/globals';
import { buildSnapshot } from '../../../../lib/core/fleet/snapshot';
import { thinkingCapable } from '../../../../lib/core/fleet/thinking-capable';
import { fromAnthropicMessagesRequest } from '../../../../lib/core/protocols/anthropic/from-anthropic-messages-request';
import { fromOpenAIChatRequest } from '../../../../lib/core/protocols/openai/from-openai-chat-request';
import { raiseThinkingBudget } from '../../../../lib/core/protocols/thinking-budget';
import { parseAnthropicMessagesRequest } from '../../../../lib/core/wire/anthropic';
import { parseOpenAIChatRequest } from '../../../../lib/core/wire/openai';
import { requestPerModel } from '../../../../lib/features/chat/thinking-per-model';
import { makeNodeModel, makeNodeRecord, T0 } from '../../../helpers/factories';

const THINKER = 'gpt-oss:20b';
const PLAIN = 'llama3.2:3b';

const snapshot = buildSnapshot(
  [
    makeNodeRecord({
      id: 'gpu1',
      lastSeenAt: T0,
      models: [
        makeNodeModel({ name: THINKER, capabilities: ['completion', 'tools', 'thinking'] }),
        makeNodeModel({ name: PLAIN, capabilities: ['completion', 'tools'] }),
      ],
      loaded: [],
    }),
  ],
  T0,
  { degradedAfterMs: 15_000, offlineAfterMs: 30_000 },
);

function openAI(body: object) {
  const parsed = parseOpenAIChatRequest(body);
  if (!parsed.ok) throw new Error('bad fixture');
  return (capable: boolean) => fromOpenAIChatRequest(parsed.value, { images: new Map(), thinking: { capable } });
}

function forRequested(model: string, translate: (capable: boolean) => ReturnType<typeof fromOpenAIChatRequest>) {
  const capable = thinkingCapable(snapshot, model);
  return requestPerModel(translate(capable), capable, snapshot, translate);
}

describe('requestPerModel', () => {
  const messages = [{ role: 'user', content: 'hi' }];

  it('gives a fallback that cannot think no think and the client’s own budget', () => {
    const forModel = forRequested(
      THINKER,
      openAI({ model: THINKER, messages, reasoning_effort: 'high', max_tokens: 20, temperature: 0.2 }),
    );

    expect(forModel(THINKER)).toMatchObject({ think: 'high', options: { num_predict: raiseThinkingBudget(20) } });
    const fallback = forModel(PLAIN);
    expect(fallback.think).toBeUndefined();
    expect('think' in fallback).toBe(false);
    expect(fallback.options).toEqual({ temperature: 0.2, num_predict: 20 });
    expect(fallback.messages).toEqual(forModel(THINKER).messages);
  });

  it('raises the budget for a fallback that thinks when the requested model does not', () => {
    const forModel = forRequested(PLAIN, openAI({ model: PLAIN, messages, max_tokens: 20 }));

    expect(forModel(PLAIN).options?.['num_predict']).toBe(20);
    expect(forModel(THINKER).options?.['num_predict']).toBe(raiseThinkingBudget(20));
  });

  it('returns the request as translated for a model of the same capability, and builds the other once', () => {
    let translations = 0;
    const translate = openAI({ model: THINKER, messages, max_tokens: 20 });
    const forModel = forRequested(THINKER, (capable) => {
      translations += 1;
      return translate(capable);
    });
    const requested = forModel(THINKER);

    expect(forModel(THINKER)).toBe(requested);
    expect(forModel(PLAIN)).toBe(forModel(PLAIN));
    expect(translations).toBe(2);
  });

  it('leaves a request without options without them', () => {
    const request = { model: PLAIN, messages: [], stream: false };
    const forModel = requestPerModel(request, true, snapshot, () => request);

    expect(forModel(PLAIN)).toEqual(request);
  });

  it('follows the Anthropic translator: thinking enabled by the client keeps its own budget everywhere', () => {
    const parsed = parseAnthropicMessagesRequest({
      model: THINKER,
      max_tokens: 300,
      thinking: { type: 'enabled', budget_tokens: 200 },
      messages,
    });
    if (!parsed.ok) throw new Error('bad fixture');
    const forModel = forRequested(THINKER, (capable) =>
      fromAnthropicMessagesRequest(parsed.value, { images: new Map(), thinking: { capable } }),
    );

    expect(forModel(THINKER)).toMatchObject({ think: true, options: { num_predict: 300 } });
    expect(forModel(PLAIN).think).toBeUndefined();
    expect(forModel(PLAIN).options?.['num_predict']).toBe(300);
  });
});
