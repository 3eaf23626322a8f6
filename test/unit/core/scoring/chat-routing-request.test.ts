import { describe, expect, it } from '@jest/globals';
import { chatConversationKey, chatRoutingRequest } from '../../../../lib/core/scoring/chat-routing-request';

const base = { model: 'llama3.2:3b', fallbackModels: [], tags: [] };
const messages = [{ role: 'user', content: 'x'.repeat(400) }];

describe('chatRoutingRequest', () => {
  it('estimates tool definitions and earlier tool calls as part of the prompt', () => {
    const tools = [{ type: 'function', function: { name: 'Read', description: 'd'.repeat(4000) } }];
    const calls = [
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'Edit', arguments: { text: 'e'.repeat(2000) } } }],
      },
    ];

    const plain = chatRoutingRequest({ ...base, messages, tools: undefined });
    const withTools = chatRoutingRequest({ ...base, messages: [...messages, ...calls], tools });

    expect(plain.promptTokens).toBe(100);
    // 4,000 + 2,000 characters of text, plus their JSON framing, at four characters a token.
    expect(withTools.promptTokens).toBeGreaterThan(100 + 1500);
    expect(withTools.promptTokens).toBeLessThan(100 + 1600);
    expect(withTools.needsTools).toBe(true);
  });

  it('carries the answer budget and keeps the context layers’ own count', () => {
    const request = chatRoutingRequest({ ...base, messages, tools: [], promptTokens: 26_000, answerTokens: 1024 });
    expect(request).toMatchObject({ promptTokens: 26_000, answerTokens: 1024, needsTools: false });
  });

  it('says a conversation goes on once it carries an earlier answer, not before', () => {
    const first = chatRoutingRequest({ ...base, messages, tools: undefined });
    const next = chatRoutingRequest({
      ...base,
      messages: [...messages, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'and then?' }],
      tools: undefined,
    });

    expect(first.continuesConversation).toBeUndefined();
    expect(next.continuesConversation).toBe(true);
    expect(next.conversationKey).toBe(first.conversationKey);
  });

  it('estimates the tokens through the last answer: what the node that served it may still hold', () => {
    const earlier = [
      { role: 'user', content: 'x'.repeat(400) },
      { role: 'assistant', content: 'y'.repeat(200) },
    ];
    const next = chatRoutingRequest({
      ...base,
      messages: [...earlier, { role: 'user', content: 'z'.repeat(400) }],
      tools: undefined,
    });

    expect(next.prefixTokens).toBe(150);
    expect(next.promptTokens).toBe(250);
    expect(chatRoutingRequest({ ...base, messages, tools: undefined }).prefixTokens).toBeUndefined();
  });

  it('keys the conversation by its first system prompt and first user turn, as the context layers do', () => {
    const system = { role: 'system', content: 'be brief' };
    const later = [
      { role: 'system', content: 'a later instruction' },
      { role: 'user', content: 'second question' },
    ];
    const turns = [system, { role: 'user', content: 'first question' }, ...later];
    const request = chatRoutingRequest({ ...base, messages: turns, tools: undefined });
    const otherFirstTurn = chatRoutingRequest({
      ...base,
      messages: [system, { role: 'user', content: 'another question' }, ...later],
      tools: undefined,
    });
    const withoutLaterTurns = chatRoutingRequest({ ...base, messages: turns.slice(0, 2), tools: undefined });

    expect(request.conversationKey).toBe(chatConversationKey(base.model, base.tags, turns));
    expect(request.conversationKey).toBe(withoutLaterTurns.conversationKey);
    expect(otherFirstTurn.conversationKey).not.toBe(request.conversationKey);
    expect(chatRoutingRequest({ ...base, messages: [system], tools: undefined }).conversationKey).toBeUndefined();
  });
});
