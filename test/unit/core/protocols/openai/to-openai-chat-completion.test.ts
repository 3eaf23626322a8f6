import { describe, expect, it } from '@jest/globals';
import { toOpenAIChatCompletion } from '../../../../../lib/core/protocols/openai/to-openai-chat-completion';
import { wholeReply } from '../node-replies';

const CONTEXT = { id: 'chatcmpl-7f3a9c2e1b4d', created: 1763630043, model: 'qwen3:8b' };

describe('toOpenAIChatCompletion', () => {
  it('answers with the text, the finish reason and the usage', () => {
    expect(toOpenAIChatCompletion(wholeReply('plain-text'), CONTEXT)).toEqual({
      id: 'chatcmpl-7f3a9c2e1b4d',
      object: 'chat.completion',
      created: 1763630043,
      model: 'qwen3:8b',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Bonjour\u00a0! Voilà — un café ☕ et 日本語 🚀.',
            refusal: null,
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 31, completion_tokens: 12, total_tokens: 43 },
    });
  });

  it('returns thinking as reasoning_content', () => {
    const message = toOpenAIChatCompletion(wholeReply('thinking'), CONTEXT).choices[0].message;

    expect(message.content).toBe('17 × 3 = **51**.');
    expect(message.reasoning_content).toBe('Okay, the user asks 17 × 3. That is 51.');
  });

  it('returns tool calls with a JSON-string arguments, null content and finish_reason tool_calls', () => {
    expect(toOpenAIChatCompletion(wholeReply('tool-call'), CONTEXT).choices).toMatchInlineSnapshot(`
[
  {
    "finish_reason": "tool_calls",
    "index": 0,
    "logprobs": null,
    "message": {
      "content": null,
      "reasoning_content": "The user wants Tokyo weather.",
      "refusal": null,
      "role": "assistant",
      "tool_calls": [
        {
          "function": {
            "arguments": "{"city":"Tokyo","unit":"celsius"}",
            "name": "get_weather",
          },
          "id": "call_k3v9x2qa",
          "type": "function",
        },
      ],
    },
  },
]
`);
  });

  it('gives calls without a node id the same ids the stream gives them', () => {
    const calls = toOpenAIChatCompletion(wholeReply('parallel-tool-calls'), CONTEXT).choices[0].message.tool_calls;

    expect(calls?.map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
      ['call_7f3a9c2e1b4d_0', 'get_weather', '{"city":"Zürich"}'],
      ['call_7f3a9c2e1b4d_1', 'get_time', '{"timezone":"Europe/Zurich"}'],
    ]);
  });

  it('relays arguments a node sent as a string', () => {
    const reply = {
      message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{"a":1}' } }] },
      done: true,
    };

    expect(toOpenAIChatCompletion(reply, CONTEXT).choices[0].message.tool_calls?.[0]?.function.arguments).toBe(
      '{"a":1}',
    );
  });

  it('finishes with length when the node spent its budget', () => {
    expect(toOpenAIChatCompletion(wholeReply('length'), CONTEXT).choices[0].finish_reason).toBe('length');
  });

  it.each([
    ['cached-tokens', { prompt_tokens_details: { cached_tokens: 48 } }],
    ['cached-zero', { prompt_tokens_details: { cached_tokens: 0 } }],
  ] as const)('reports the cached tokens the node measured in %s', (name, details) => {
    expect(toOpenAIChatCompletion(wholeReply(name), CONTEXT).usage).toEqual({
      prompt_tokens: 52,
      completion_tokens: 7,
      total_tokens: 59,
      ...details,
    });
  });

  it('omits cached tokens the node did not measure and counts absent metrics as 0', () => {
    const usage = toOpenAIChatCompletion({ message: { role: 'assistant', content: '' }, done: true }, CONTEXT).usage;

    expect(usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
  });

  it("passes the node's logprobs in OpenAI's envelope", () => {
    const logprobs = [{ token: 'Hi', logprob: -0.01, bytes: [72, 105], top_logprobs: [] }];
    const reply = { message: { role: 'assistant', content: 'Hi' }, done: true, logprobs };

    expect(toOpenAIChatCompletion(reply, CONTEXT).choices[0].logprobs).toEqual({ content: logprobs });
  });
});
