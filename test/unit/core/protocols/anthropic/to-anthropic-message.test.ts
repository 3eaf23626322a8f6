import { describe, expect, it } from '@jest/globals';
import { thinkingSignature } from '../../../../../lib/core/protocols/anthropic/thinking-signature';
import {
  type AnthropicMessageContext,
  toAnthropicMessage,
} from '../../../../../lib/core/protocols/anthropic/to-anthropic-message';
import { fixtureReply } from './anthropic-fixtures';

const CONTEXT: AnthropicMessageContext = { id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'qwen3:8b', stopSequences: [] };

function callReply(args: unknown, id?: string) {
  const call = { ...(id === undefined ? {} : { id }), function: { name: 'f', arguments: args } };
  return { message: { role: 'assistant', content: '', tool_calls: [call] }, done: true, done_reason: 'stop' };
}

describe('toAnthropicMessage', () => {
  it('answers with the text, the stop reason and the usage', () => {
    expect(toAnthropicMessage(fixtureReply('plain-text'), CONTEXT)).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      model: 'qwen3:8b',
      content: [{ type: 'text', text: 'Bonjour\u00a0! Voilà — un café ☕ et 日本語 🚀.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 31, output_tokens: 12 },
    });
  });

  it('puts thinking first, in a thinking block signed by the router', () => {
    expect(toAnthropicMessage(fixtureReply('thinking'), CONTEXT).content).toEqual([
      {
        type: 'thinking',
        thinking: 'Okay, the user asks 17 × 3. That is 51.',
        signature: thinkingSignature('Okay, the user asks 17 × 3. That is 51.'),
      },
      { type: 'text', text: '17 × 3 = **51**.' },
    ]);
  });

  it('leaves out an empty text block before tool calls and stops with tool_use', () => {
    const message = toAnthropicMessage(fixtureReply('tool-call'), CONTEXT);

    expect(message.content).toEqual([
      {
        type: 'thinking',
        thinking: 'The user wants Tokyo weather.',
        signature: thinkingSignature('The user wants Tokyo weather.'),
      },
      { type: 'tool_use', id: 'call_k3v9x2qa', name: 'get_weather', input: { city: 'Tokyo', unit: 'celsius' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('keeps text before tool calls and gives calls without a node id ids derived from the message id', () => {
    expect(toAnthropicMessage(fixtureReply('text-then-tools'), CONTEXT).content.slice(1)).toEqual([
      { type: 'text', text: 'Checking Zürich and Genève…' },
      { type: 'tool_use', id: 'call_zrh', name: 'get_weather', input: { city: 'Zürich' } },
      { type: 'tool_use', id: 'toolu_01XFDUDYJgAACzvnptvVoYEL_1', name: 'get_weather', input: { city: 'Genève' } },
    ]);
  });

  it('answers an empty reply with one empty text block', () => {
    expect(toAnthropicMessage({ message: { role: 'assistant', content: '' }, done: true }, CONTEXT).content).toEqual([
      { type: 'text', text: '' },
    ]);
  });

  describe('tool input', () => {
    it.each([
      ['an object', { a: 1 }, { a: 1 }],
      ['a JSON string', '{"a":1}', { a: 1 }],
      ['an empty string', '', {}],
      ['absent', undefined, {}],
      ['text that is not JSON', '{"a":', { _raw: '{"a":' }],
      ['a JSON array string', '[1,2]', { _raw: '[1,2]' }],
      ['an array', [1, 2], { _raw: '[1,2]' }],
    ])('makes an input object of %s', (_case, args, input) => {
      expect(toAnthropicMessage(callReply(args, 'call_1'), CONTEXT).content).toEqual([
        { type: 'tool_use', id: 'call_1', name: 'f', input },
      ]);
    });

    it('derives an id when the node sent an empty one', () => {
      expect(toAnthropicMessage(callReply({}, ''), CONTEXT).content[0]).toMatchObject({
        id: 'toolu_01XFDUDYJgAACzvnptvVoYEL_0',
      });
    });
  });

  describe('stop reasons', () => {
    it('stops with max_tokens when the node spent its budget', () => {
      expect(toAnthropicMessage(fixtureReply('length'), CONTEXT)).toMatchObject({
        stop_reason: 'max_tokens',
        stop_sequence: null,
      });
    });

    it('names the stop sequence the text ends with', () => {
      const context = { ...CONTEXT, stopSequences: ['END', '\n\nHuman:'] };

      expect(toAnthropicMessage(fixtureReply('stop-sequence'), context)).toMatchObject({
        stop_reason: 'stop_sequence',
        stop_sequence: '\n\nHuman:',
      });
    });
  });

  describe('usage', () => {
    it.each([
      ['cached-tokens', { input_tokens: 4, output_tokens: 7, cache_read_input_tokens: 48 }],
      ['cached-zero', { input_tokens: 52, output_tokens: 7, cache_read_input_tokens: 0 }],
    ] as const)('reports the cached tokens the node measured in %s apart from the rest', (name, usage) => {
      expect(toAnthropicMessage(fixtureReply(name), CONTEXT).usage).toEqual(usage);
    });

    it('omits cached tokens the node did not measure and counts absent metrics as 0', () => {
      const usage = toAnthropicMessage({ message: { role: 'assistant', content: '' }, done: true }, CONTEXT).usage;

      expect(usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    });

    it('never reports negative input tokens', () => {
      const reply = {
        message: { role: 'assistant', content: 'x' },
        done: true,
        prompt_eval_count: 3,
        prompt_cache_count: 5,
      };

      expect(toAnthropicMessage(reply, CONTEXT).usage).toEqual({
        input_tokens: 0,
        output_tokens: 0,
        cache_read_input_tokens: 5,
      });
    });
  });
});
