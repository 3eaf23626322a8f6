import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../lib/core/errors';
import { toAnthropicMessage } from '../../../../lib/core/protocols/anthropic/to-anthropic-message';
import type { OllamaChatChunk } from '../../../../lib/core/wire/ollama';
import {
  type AnthropicOutputContext,
  createAnthropicOutput,
  PING_INTERVAL_MS,
} from '../../../../lib/features/chat/anthropic-output';
import { CHAT_FIXTURES, FAILING_CHAT_FIXTURES, readOllamaFixture } from '../../../fixtures/ollama/read-fixture';
import { replayAnthropic, sseEvents } from '../../../helpers/replay';
import { wholeReply } from '../../core/protocols/node-replies';
import { driveOutput } from './drive-output';

const CONTEXT: AnthropicOutputContext = {
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  model: 'qwen3:8b',
  streaming: true,
  stopSequences: [],
  options: { num_predict: 1024 },
  showThinking: true,
};

const PING = 'event: ping\ndata: {"type":"ping"}\n\n';

const line = (content: string, done = false): OllamaChatChunk => ({
  model: 'qwen3:8b',
  message: { role: 'assistant', content },
  done,
  ...(done ? { done_reason: 'stop', prompt_eval_count: 12, eval_count: 3 } : {}),
});

describe('createAnthropicOutput', () => {
  it.each(CHAT_FIXTURES)('streams the converter events of %s, ending at message_stop', (name) => {
    const output = createAnthropicOutput(CONTEXT);

    const { text, failure } = driveOutput(output, readOllamaFixture(name));

    expect(failure).toBeUndefined();
    expect(text).toBe(replayAnthropic([readOllamaFixture(name)], CONTEXT));
    expect(sseEvents(text).at(0)?.[0]).toBe('message_start');
    expect(sseEvents(text).at(-1)?.[0]).toBe('message_stop');
  });

  it.each(CHAT_FIXTURES)("answers %s whole as toAnthropicMessage's body, with the diagnostic headers", (name) => {
    const output = createAnthropicOutput({ ...CONTEXT, streaming: false });

    const { text, headers } = driveOutput(output, readOllamaFixture(name));

    expect(JSON.parse(text)).toEqual(toAnthropicMessage(wholeReply(name), CONTEXT));
    expect(headers?.['x-output-tokens']).toMatch(/^\d+$/);
    expect(headers?.['x-budget-used']).toMatch(/^\d+\/1024$/);
  });

  it.each(FAILING_CHAT_FIXTURES)('reports the failure of %s after the first byte as an error event', (name) => {
    const output = createAnthropicOutput(CONTEXT);

    const { text, failure } = driveOutput(output, readOllamaFixture(name));
    const events = sseEvents(text);

    expect(failure?.status).toBe(502);
    expect(events.at(0)?.[0]).toBe('message_start');
    expect(events.at(-1)).toEqual([
      'error',
      { type: 'error', error: { type: 'api_error', message: failure?.message } },
    ]);
    expect(events.some(([event]) => event === 'message_stop')).toBe(false);
  });

  it('leaves the failure of a whole reply to the handler, which answers it before the first byte', () => {
    const output = createAnthropicOutput({ ...CONTEXT, streaming: false });

    const { text, failure } = driveOutput(output, readOllamaFixture('truncated'));

    expect(text).toBe('');
    expect(failure?.status).toBe(502);
  });

  it("streams with the event-stream content type and reports the node's counts as its outcome", () => {
    const output = createAnthropicOutput(CONTEXT);

    driveOutput(output, readOllamaFixture('plain-text'));

    expect(output.contentType).toMatch(/^text\/event-stream/);
    const reply = wholeReply('plain-text');
    expect(output.outcome()).toEqual({
      promptTokens: reply.prompt_eval_count,
      completionTokens: reply.eval_count,
      finishReason: 'stop',
      loadMs: Math.round((reply.load_duration ?? Number.NaN) / 1e6),
      // The node's own prompt and answer times, for its observed rates.
      promptEvalMs: (reply.prompt_eval_duration ?? Number.NaN) / 1e6,
      evalMs: (reply.eval_duration ?? Number.NaN) / 1e6,
      // Loading, the prompt and one token of the answer, in ms (Ollama's durations are ns).
      nodeFirstTokenMs:
        ((reply.load_duration ?? 0) +
          (reply.prompt_eval_duration ?? 0) +
          (reply.eval_duration ?? 0) / (reply.eval_count ?? 1)) /
        1e6,
    });
  });

  it('starts message_start with the prompt estimate when there is one', () => {
    const output = createAnthropicOutput({ ...CONTEXT, inputTokensEstimate: 42 });

    const [first] = sseEvents(output.push(line('Hi'), ''));

    expect(first?.[1]).toMatchObject({ message: { usage: { input_tokens: 42, output_tokens: 0 } } });
  });
});

describe('createAnthropicOutput keep-alive', () => {
  // The relay writes it (test/unit/services/http/relay-stream.test.ts); the output says what it is.
  it('offers a ping event as the keep-alive of a streamed reply, after the configured quiet', () => {
    const output = createAnthropicOutput({ ...CONTEXT, pingIntervalMs: 1000 });

    output.push(line('Hello'), '');

    expect(output.keepAlive?.intervalMs).toBe(1000);
    expect(output.keepAlive?.bytes()).toBe(PING);
  });

  it('waits 10 s by default', () => {
    expect(createAnthropicOutput(CONTEXT).keepAlive?.intervalMs).toBe(PING_INTERVAL_MS);
    expect(PING_INTERVAL_MS).toBe(10_000);
  });

  it('has nothing more to say once the stream ended or failed', () => {
    const ended = createAnthropicOutput(CONTEXT);
    const failed = createAnthropicOutput(CONTEXT);
    ended.push(line('Hello'), '');
    ended.push(line('', true), '');
    failed.push(line('Hello'), '');

    ended.end();
    failed.fail(new UpstreamError('boom'));

    expect(ended.keepAlive?.bytes()).toBe('');
    expect(failed.keepAlive?.bytes()).toBe('');
  });

  it('never pings a whole reply', () => {
    expect(createAnthropicOutput({ ...CONTEXT, streaming: false }).keepAlive).toBeUndefined();
  });
});
