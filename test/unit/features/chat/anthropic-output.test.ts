import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { UpstreamError } from '../../../../lib/core/errors';
import { toAnthropicMessage } from '../../../../lib/core/protocols/anthropic/to-anthropic-message';
import type { OllamaChatChunk } from '../../../../lib/core/wire/ollama';
import { type AnthropicOutputContext, createAnthropicOutput } from '../../../../lib/features/chat/anthropic-output';
import { CHAT_FIXTURES, FAILING_CHAT_FIXTURES, readOllamaFixture } from '../../../fixtures/ollama/read-fixture';
import { replayAnthropic, sseEvents } from '../../../helpers/replay';
import { wholeReply } from '../../core/protocols/node-replies';
import { createRecordingSink, driveOutput } from './drive-output';

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

describe('createAnthropicOutput pings', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  const pinging = (sink = createRecordingSink()) => {
    const output = createAnthropicOutput({ ...CONTEXT, sink, pingIntervalMs: 1000 });
    return { output, sink };
  };

  it('writes a ping after an interval with nothing written, once the relay fixed the headers', () => {
    const { sink } = pinging();
    sink.start({ statusCode: 200 });

    jest.advanceTimersByTime(999);
    const before = sink.writes.length;
    jest.advanceTimersByTime(1);

    expect(before).toBe(0);
    expect(sink.writes).toEqual([PING]);
  });

  it('keeps pinging while the node stays quiet', () => {
    const { sink } = pinging();
    sink.start({ statusCode: 200 });

    jest.advanceTimersByTime(3500);

    expect(sink.writes).toEqual([PING, PING, PING]);
  });

  it('waits a whole interval after the last event it wrote', () => {
    const { output, sink } = pinging();
    sink.start({ statusCode: 200 });

    jest.advanceTimersByTime(600);
    output.push(line('Hello'), '');
    jest.advanceTimersByTime(999);
    const quiet = sink.writes.length;
    jest.advanceTimersByTime(1);

    expect(quiet).toBe(0);
    expect(sink.writes).toEqual([PING]);
  });

  it('writes nothing before the headers are fixed', () => {
    const { sink } = pinging();

    jest.advanceTimersByTime(5000);

    expect(sink.writes).toEqual([]);
  });

  it('stops at the end of the stream', () => {
    const { output, sink } = pinging();
    sink.start({ statusCode: 200 });

    output.push(line('Hello'), '');
    output.push(line('', true), '');
    output.end();
    jest.advanceTimersByTime(5000);

    expect(sink.writes).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops after a failure was reported', () => {
    const { output, sink } = pinging();
    sink.start({ statusCode: 200 });

    output.push(line('Hello'), '');
    output.fail(new UpstreamError('boom'));
    jest.advanceTimersByTime(5000);

    expect(sink.writes).toEqual([]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops when the client leaves or the reply ended', () => {
    const left = pinging();
    const ended = pinging();
    left.sink.start({ statusCode: 200 });
    ended.sink.start({ statusCode: 502 });

    left.sink.leave();
    void ended.sink.end('{"type":"error"}');
    jest.advanceTimersByTime(5000);

    expect(left.sink.writes).toEqual([]);
    expect(ended.sink.writes).toEqual(['{"type":"error"}']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('never pings a whole reply, or on a buffered host', () => {
    const whole = createRecordingSink();
    const buffered = createRecordingSink(false);
    createAnthropicOutput({ ...CONTEXT, streaming: false, sink: whole, pingIntervalMs: 1000 });
    createAnthropicOutput({ ...CONTEXT, sink: buffered, pingIntervalMs: 1000 });
    whole.start({ statusCode: 200 });
    buffered.start({ statusCode: 200 });

    jest.advanceTimersByTime(5000);

    expect(whole.writes).toEqual([]);
    expect(buffered.writes).toEqual([]);
  });
});
