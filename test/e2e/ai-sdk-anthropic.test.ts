/**
 * The Vercel AI SDK's Anthropic provider (`@ai-sdk/anthropic` with `ai`) against the built emulator and a
 * simulated thinking model: it keeps the router's signed reasoning (unsigned reasoning it drops, with an
 * "unsupported reasoning metadata" warning, when the conversation goes on), sends it back in the next
 * turn, and a small `maxOutputTokens` on a model whose budget the router raised ends at the budget with
 * `length`.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateText, type ModelMessage, streamText } from 'ai';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { countTokens } from '../../lib/core/tokens/count-tokens';
import { eventually, type RouterProcess, startRouter } from './router-process';

const THINKER = 'qwen3:8b';
let node: SimNode;
let router: RouterProcess;
let anthropic: ReturnType<typeof createAnthropic>;

const thinking = { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } } as const;

beforeAll(async () => {
  node = await startSimNode({
    id: 'a',
    models: CATALOG.filter((entry) => entry.name === THINKER),
    loaded: [THINKER],
    ttftMs: 10,
    tokensPerSecond: 5000,
  });
  router = await startRouter({ FLEET_NODES: `a=${node.url}` });
  anthropic = createAnthropic({ baseURL: `${router.url}/v1`, apiKey: 'unused' });
  await eventually(async () => {
    const ps = (await (await fetch(`${router.url}/api/ps`)).json()) as { models: { name: string }[] };
    expect(ps.models.map((model) => model.name)).toContain(THINKER);
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await node?.close();
});

describe('@ai-sdk/anthropic', () => {
  it('streams signed reasoning and sends it back in the next turn without a warning', async () => {
    const first: ModelMessage[] = [{ role: 'user', content: 'hello from the ai sdk' }];
    const streamed = streamText({
      model: anthropic(THINKER),
      maxOutputTokens: 2048,
      providerOptions: thinking,
      messages: first,
    });
    const reasoning = await streamed.reasoning;
    const text = await streamed.text;

    expect(reasoning).toHaveLength(1);
    expect(reasoning[0]?.text).toContain('The user wrote');
    const signature = reasoning[0]?.providerMetadata?.['anthropic']?.['signature'];
    expect(typeof signature === 'string' && signature.length > 0).toBe(true);
    expect(text).toContain('Echo:');

    const followUp = await generateText({
      model: anthropic(THINKER),
      maxOutputTokens: 2048,
      providerOptions: thinking,
      messages: [...first, ...(await streamed.response).messages, { role: 'user', content: 'and again' }],
    });

    expect(followUp.warnings).toEqual([]);
    // The body the provider sent (an object here, not its JSON text).
    const sent = followUp.request.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages[1]?.content).toEqual(
      expect.arrayContaining([{ type: 'thinking', thinking: reasoning[0]?.text, signature }]),
    );
    expect(followUp.reasoning[0]?.providerMetadata?.['anthropic']?.['signature']).toEqual(expect.any(String));
    expect(followUp.finishReason).toBe('stop');
  });

  it('keeps the visible answer within maxOutputTokens and ends with length', async () => {
    const result = await generateText({
      model: anthropic(THINKER),
      maxOutputTokens: 20,
      prompt: 'Please answer in 400 words.',
    });

    expect(result.finishReason).toBe('length');
    expect(result.usage.outputTokens).toBeLessThanOrEqual(20);
    expect(countTokens(result.text)).toBeLessThanOrEqual(20);
    // No thinking asked for: none shown.
    expect(result.reasoning).toEqual([]);
  });
});
