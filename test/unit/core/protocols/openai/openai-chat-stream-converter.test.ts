import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import { Stream } from 'openai/streaming';
import { BadRequestError, UpstreamError } from '../../../../../lib/core/errors';
import { createOpenAIChatStreamConverter } from '../../../../../lib/core/protocols/openai/openai-chat-stream-converter';
import type { OpenAIChatChunk } from '../../../../../lib/core/wire/openai';
import { CHAT_FIXTURES, type OllamaFixture, readOllamaFixture } from '../../../../fixtures/ollama/read-fixture';
import { OPENAI_CHAT_CONTEXT, replayOpenAIChat } from '../../../../helpers/replay';
import { assertProperty, byteByByte, cutsArbitrary, insideCharacterOffsets, splitAt } from '../../stream/chunkings';
import { nodeChunks, wholeReply } from '../node-replies';

const WITH_USAGE = { ...OPENAI_CHAT_CONTEXT, includeUsage: true };

function convert(name: OllamaFixture, includeUsage: boolean): OpenAIChatChunk[] {
  const converter = createOpenAIChatStreamConverter({ ...OPENAI_CHAT_CONTEXT, includeUsage });
  return [...nodeChunks(name).flatMap((chunk) => converter.push(chunk)), ...converter.end()];
}

function replay(name: OllamaFixture, includeUsage = false): string {
  return replayOpenAIChat([readOllamaFixture(name)], { ...OPENAI_CHAT_CONTEXT, includeUsage });
}

describe('createOpenAIChatStreamConverter', () => {
  describe('encoded streams', () => {
    it('streams text after a role delta and ends with one finish chunk and [DONE]', () => {
      expect(replay('plain-text')).toMatchInlineSnapshot(`
"data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"Bonjour"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" !"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" Voilà"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" —"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" un"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" café"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" ☕"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" et"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" 日本"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"語"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" 🚀"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"."},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: [DONE]

"
`);
    });

    it('streams thinking as reasoning_content and skips lines with nothing in them', () => {
      expect(replay('thinking')).toMatchInlineSnapshot(`
"data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":"Okay"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":","},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" the"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" user"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" asks"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" 17"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" ×"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" 3"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":"."},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" That"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" is"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" 51"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":"."},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"17"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" ×"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" 3"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" ="},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" **"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"51"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"**"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"."},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}

data: [DONE]

"
`);
    });

    it('streams a whole tool call with its id and finishes with tool_calls', () => {
      expect(replay('tool-call')).toMatchInlineSnapshot(`
"data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":"The"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" user"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" wants"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" Tokyo"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":" weather"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"reasoning_content":"."},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_k3v9x2qa","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Tokyo\\",\\"unit\\":\\"celsius\\"}"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}

data: [DONE]

"
`);
    });

    it('numbers parallel tool calls and gives id-less calls an id derived from the completion', () => {
      expect(replay('parallel-tool-calls')).toMatchInlineSnapshot(`
"data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_7f3a9c2e1b4d_0","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Zürich\\"}"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_7f3a9c2e1b4d_1","type":"function","function":{"name":"get_time","arguments":"{\\"timezone\\":\\"Europe/Zurich\\"}"}}]},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}

data: [DONE]

"
`);
    });

    it('finishes with length when the node spent its budget', () => {
      expect(replay('length')).toMatchInlineSnapshot(`
"data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"Once"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" upon"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" a"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" time"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":","},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" in"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" a"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" kingdom"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}

data: [DONE]

"
`);
    });

    it('adds a usage chunk with the measured cached tokens when usage is asked for', () => {
      expect(replay('cached-tokens', true)).toMatchInlineSnapshot(`
"data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"The"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" capital"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" of"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" France"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" is"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" Paris"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"."},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[],"usage":{"prompt_tokens":52,"completion_tokens":7,"total_tokens":59,"prompt_tokens_details":{"cached_tokens":48}}}

data: [DONE]

"
`);
    });
  });

  describe('usage', () => {
    function usageOf(name: OllamaFixture) {
      const chunks = convert(name, true);
      return chunks[chunks.length - 1]?.usage;
    }

    it('reports a measured zero as cached_tokens 0', () => {
      expect(usageOf('cached-zero')).toEqual({
        prompt_tokens: 52,
        completion_tokens: 7,
        total_tokens: 59,
        prompt_tokens_details: { cached_tokens: 0 },
      });
    });

    it('leaves prompt_tokens_details out when the node did not measure the cache', () => {
      expect(usageOf('plain-text')).toEqual({ prompt_tokens: 31, completion_tokens: 12, total_tokens: 43 });
    });

    it('sends no usage at all when it was not asked for', () => {
      const chunks = convert('cached-tokens', false);

      expect(chunks.every((chunk) => !('usage' in chunk))).toBe(true);
      expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    });
  });

  describe.each(CHAT_FIXTURES.flatMap((name) => [true, false].map((includeUsage) => ({ name, includeUsage }))))(
    'invariants of $name (includeUsage: $includeUsage)',
    ({ name, includeUsage }) => {
      const chunks = convert(name, includeUsage);
      const choices = chunks.flatMap((chunk) => chunk.choices);

      it('gives every chunk the same id, created and model', () => {
        for (const chunk of chunks) {
          expect(chunk).toMatchObject({
            id: OPENAI_CHAT_CONTEXT.id,
            object: 'chat.completion.chunk',
            created: OPENAI_CHAT_CONTEXT.created,
            model: OPENAI_CHAT_CONTEXT.model,
          });
        }
      });

      it('puts the role on the first delta only', () => {
        expect(choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
        expect(choices.slice(1).filter((choice) => 'role' in choice.delta)).toEqual([]);
      });

      it('sets exactly one finish_reason, on the last choice', () => {
        const finished = choices.filter((choice) => choice.finish_reason !== null);

        expect(finished).toHaveLength(1);
        expect(choices[choices.length - 1]?.finish_reason).not.toBeNull();
      });

      it('carries usage only when asked, on a last chunk without choices', () => {
        const withUsage = chunks.filter((chunk) => chunk.usage !== undefined && chunk.usage !== null);

        expect(withUsage).toHaveLength(includeUsage ? 1 : 0);
        if (includeUsage) {
          expect(chunks[chunks.length - 1]?.choices).toEqual([]);
          expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
        }
      });

      it('numbers tool calls from 0 without gaps, each with an id, a type and parsable arguments', () => {
        const calls = choices.flatMap((choice) => choice.delta.tool_calls ?? []);

        expect(calls.map((call) => call.index)).toEqual(calls.map((_call, index) => index));
        for (const call of calls) {
          expect(call.id).not.toBe('');
          expect(call.type).toBe('function');
          expect(() => JSON.parse(call.function.arguments)).not.toThrow();
        }
        expect(choices[choices.length - 1]?.finish_reason === 'tool_calls').toBe(calls.length > 0);
      });

      it('streams exactly the text the whole reply has', () => {
        const whole = wholeReply(name).message;

        expect(choices.map((choice) => choice.delta.content ?? '').join('')).toBe(whole?.content ?? '');
        expect(choices.map((choice) => choice.delta.reasoning_content ?? '').join('')).toBe(whole?.thinking ?? '');
      });
    },
  );

  describe.each(CHAT_FIXTURES)('replaying %s in pieces', (name) => {
    const fixture = readOllamaFixture(name);
    const whole = replayOpenAIChat([fixture], WITH_USAGE);

    it('writes the same bytes one byte at a time', () => {
      expect(replayOpenAIChat(byteByByte(fixture), WITH_USAGE)).toBe(whole);
    });

    it('writes the same bytes when cut inside every multi-byte character', () => {
      expect(replayOpenAIChat(splitAt(fixture, insideCharacterOffsets(fixture)), WITH_USAGE)).toBe(whole);
    });

    it('writes the same bytes wherever the chunks are cut', () => {
      assertProperty(
        fc.property(cutsArbitrary(fixture), (cuts) => {
          expect(replayOpenAIChat(splitAt(fixture, cuts), WITH_USAGE)).toBe(whole);
        }),
      );
    });
  });

  describe('failures', () => {
    it('ends a stream cut before its final line with an error event instead of [DONE]', () => {
      const text = replay('truncated');

      expect(text).toMatchInlineSnapshot(`
"data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":","},"logprobs":null,"finish_reason":null}]}

data: {"id":"chatcmpl-7f3a9c2e1b4d","object":"chat.completion.chunk","created":1763630043,"model":"qwen3:8b","choices":[{"index":0,"delta":{"content":" wor"},"logprobs":null,"finish_reason":null}]}

data: {"error":{"message":"the node closed the stream before its final line","type":"server_error","param":null,"code":"upstream_error"}}

"
`);
    });

    it('reports a line that is not JSON in band', () => {
      const text = replay('malformed');

      expect(text).not.toContain('[DONE]');
      expect(text).toMatch(/data: \{"error":\{"message":"the node sent a malformed line: [^"]+","type":"server_error"/);
    });

    it("relays the node's own error line in band", () => {
      expect(replay('node-error')).toContain(
        'data: {"error":{"message":"the node failed: an error was encountered while running the model: CUDA error: out of memory","type":"server_error","param":null,"code":"upstream_error"}}\n\n',
      );
    });

    it('reports an empty node stream in band, with no chunk before it', () => {
      expect(replayOpenAIChat([], OPENAI_CHAT_CONTEXT)).toBe(
        'data: {"error":{"message":"the node closed the stream before its final line","type":"server_error","param":null,"code":"upstream_error"}}\n\n',
      );
    });

    it('throws an UpstreamError from end() when no final line came', () => {
      const converter = createOpenAIChatStreamConverter(OPENAI_CHAT_CONTEXT);
      converter.push({ message: { role: 'assistant', content: 'Hel' }, done: false });

      expect(() => converter.end()).toThrow(UpstreamError);
    });

    it('gives the error body with the field of a 400 and writes nothing more after it', () => {
      const converter = createOpenAIChatStreamConverter(OPENAI_CHAT_CONTEXT);
      converter.push({ message: { role: 'assistant', content: 'Hel' }, done: false });

      const body = converter.fail(new BadRequestError('messages.0.content: too long', 'messages.0.content'));

      expect(body).toEqual({
        error: {
          message: 'messages.0.content: too long',
          type: 'invalid_request_error',
          param: 'messages.0.content',
          code: 'invalid_request',
        },
      });
      expect(converter.push({ message: { role: 'assistant', content: 'lo' }, done: true })).toEqual([]);
      expect(converter.end()).toEqual([]);
    });

    it('ignores lines after the final one', () => {
      const converter = createOpenAIChatStreamConverter(OPENAI_CHAT_CONTEXT);
      converter.push({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' });

      expect(converter.push({ message: { role: 'assistant', content: 'late' }, done: false })).toEqual([]);
      expect(converter.end()).toEqual([]);
    });
  });

  describe('read by the openai SDK', () => {
    async function finalCompletion(text: string) {
      const controller = new AbortController();
      const stream = Stream.fromSSEResponse(new Response(text), controller);
      return ChatCompletionStream.fromReadableStream(stream.toReadableStream()).finalChatCompletion();
    }

    it('rebuilds the tool call with its id, type and arguments', async () => {
      const completion = await finalCompletion(replay('tool-call', true));

      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      expect(completion.choices[0]?.message.tool_calls).toEqual([
        {
          id: 'call_k3v9x2qa',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Tokyo","unit":"celsius"}' },
        },
      ]);
    });

    it('rebuilds the text of a multi-byte reply', async () => {
      const completion = await finalCompletion(replay('plain-text'));

      expect(completion.choices[0]?.message.content).toBe('Bonjour\u00a0! Voilà — un café ☕ et 日本語 🚀.');
      expect(completion.choices[0]?.finish_reason).toBe('stop');
    });

    it('throws on the in-band error of a cut stream', async () => {
      await expect(finalCompletion(replay('truncated'))).rejects.toThrow(
        'the node closed the stream before its final line',
      );
    });
  });
});
