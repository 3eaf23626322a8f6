import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../../lib/core/errors';
import { createOllamaChatAccumulator } from '../../../../../lib/core/protocols/ollama/ollama-chat-accumulator';
import { haveSameMap } from '../../../../helpers/hidden-class';
import { nodeChunks, wholeReply } from '../node-replies';

describe('createOllamaChatAccumulator', () => {
  // Every non-streaming answer is built here and serialised at once: answers of one shape must share
  // one hidden class, also once the builder runs optimised (see lib/core/merged.ts).
  it('gives answers of one shape one hidden class', () => {
    const chunks = nodeChunks('tool-call');
    const answers = Array.from({ length: 2000 }, () => {
      const accumulator = createOllamaChatAccumulator();
      for (const chunk of chunks) accumulator.push(chunk);
      return accumulator.end();
    });
    const [first] = answers;
    const same = answers.every(
      (answer) => haveSameMap(first ?? {}, answer) && haveSameMap(first?.message ?? {}, answer.message ?? {}),
    );
    expect(same).toBe(true);
  });

  it("keeps thinking and tool calls with the final line's metrics", () => {
    expect(wholeReply('tool-call')).toMatchInlineSnapshot(`
{
  "created_at": "2025-11-20T09:14:03.425315Z",
  "done": true,
  "done_reason": "stop",
  "eval_count": 29,
  "eval_duration": 1652014000,
  "load_duration": 21840125,
  "message": {
    "content": "",
    "role": "assistant",
    "thinking": "The user wants Tokyo weather.",
    "tool_calls": [
      {
        "function": {
          "arguments": {
            "city": "Tokyo",
            "unit": "celsius",
          },
          "index": 0,
          "name": "get_weather",
        },
        "id": "call_k3v9x2qa",
      },
    ],
  },
  "model": "qwen3:8b",
  "prompt_eval_count": 164,
  "prompt_eval_duration": 148392000,
  "total_duration": 1843271583,
}
`);
  });

  it('joins the streamed text and keeps every metric of the final line', () => {
    const reply = wholeReply('cached-tokens');

    expect(reply.message).toEqual({ role: 'assistant', content: 'The capital of France is Paris.' });
    expect(reply).toMatchObject({
      done: true,
      done_reason: 'stop',
      total_duration: 1843271583,
      load_duration: 21840125,
      prompt_eval_count: 52,
      prompt_eval_duration: 148392000,
      eval_count: 7,
      eval_duration: 1652014000,
      prompt_cache_count: 48,
    });
  });

  it('keeps tool calls from several lines in order', () => {
    const calls = wholeReply('parallel-tool-calls').message?.tool_calls;

    expect(calls?.map((call) => call.function.name)).toEqual(['get_weather', 'get_time']);
  });

  it('accepts a reply that came whole (stream: false) as its own final line', () => {
    const accumulator = createOllamaChatAccumulator();
    const whole = wholeReply('thinking');

    accumulator.push(whole);

    expect(accumulator.end()).toEqual(whole);
  });

  it('joins logprobs of every line', () => {
    const accumulator = createOllamaChatAccumulator();
    accumulator.push({ message: { role: 'assistant', content: 'a' }, done: false, logprobs: [{ token: 'a' }] });
    accumulator.push({ message: { role: 'assistant', content: '' }, done: true, logprobs: [{ token: 'b' }] });

    expect(accumulator.end().logprobs).toEqual([{ token: 'a' }, { token: 'b' }]);
  });

  it('throws an UpstreamError when the stream ended without its final line', () => {
    const accumulator = createOllamaChatAccumulator();
    for (const chunk of nodeChunks('plain-text').slice(0, 3)) accumulator.push(chunk);

    expect(() => accumulator.end()).toThrow(UpstreamError);
  });

  it('ignores lines after the final one', () => {
    const accumulator = createOllamaChatAccumulator();
    accumulator.push({ message: { role: 'assistant', content: 'done' }, done: true });
    accumulator.push({ message: { role: 'assistant', content: ' late' }, done: false });

    expect(accumulator.end().message?.content).toBe('done');
  });
});
