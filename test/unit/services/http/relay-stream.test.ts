/**
 * The one relay (`relayStream`) over scripted node bodies and a recording sink: one write per node chunk
 * awaiting back-pressure, the node's body cancelled exactly once however the relay ends, a failure after
 * the first byte reported in band and the stream ended, and keep-alives (Anthropic's pings) written by the
 * relay itself, between its own writes, only while the stream is open.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { UpstreamError } from '../../../../lib/core/errors';
import type { StreamConverter } from '../../../../lib/core/stream/stream-converter';
import type { OllamaChatChunk } from '../../../../lib/core/wire/ollama';
import { createAnthropicOutput } from '../../../../lib/features/chat/anthropic-output';
import { ChatConverter } from '../../../../lib/features/chat/chat-converter';
import { relayStream } from '../../../../lib/services/http/relay-stream';
import { createRecordingSink } from '../../features/chat/drive-output';

/** A promise the test resolves when it chooses. */
function gate(): { readonly held: Promise<void>; release(): void } {
  let open: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { held, release: () => open() };
}

/** A node body yielding `chunks`; a promise entry holds the body there, an Error entry makes it throw. */
function bodyOf(chunks: readonly (string | Error | Promise<void>)[]) {
  const log = { pulled: 0, cancels: 0 };
  async function* body(): AsyncGenerator<Uint8Array> {
    for (const chunk of chunks) {
      if (chunk instanceof Error) throw chunk;
      if (chunk instanceof Promise) await chunk;
      else {
        log.pulled += 1;
        yield Buffer.from(chunk);
      }
    }
  }
  const cancel = () => {
    log.cancels += 1;
  };
  return { reply: { body: body(), cancel }, log };
}

/** Upper-cases each chunk; `BAD` cannot be read; ends with `.`; fails as `!error!`. */
function upperCase(overrides: Partial<StreamConverter> = {}): StreamConverter {
  return {
    push: (chunk) => {
      const text = Buffer.from(chunk).toString('utf8');
      if (text === 'BAD') throw new UpstreamError('unreadable');
      return text.toUpperCase();
    },
    end: () => '.',
    fail: (error) => `!${error.message}!`,
    ...overrides,
  };
}

const brokeOff = () => new UpstreamError('the node broke off');
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('relayStream', () => {
  it('writes each node chunk as it comes, one write per chunk, then the closing bytes, and cancels once', async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const { reply, log } = bodyOf(['a', 'b', 'c']);

    const outcome = await relayStream(sink, reply, upperCase(), { brokeOff });

    expect(outcome).toEqual({ status: 'completed', failure: undefined });
    expect(sink.writes).toEqual(['A', 'B', 'C', '.']);
    expect(sink.ended).toBe(true);
    expect(log.cancels).toBe(1);
  });

  it('reads the next node chunk only once the client took the last one (back-pressure)', async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const drained = gate();
    const write = sink.write.bind(sink);
    let waiting = 0;
    sink.write = async (chunk) => {
      await write(chunk);
      waiting += 1;
      await drained.held;
    };
    const { reply, log } = bodyOf(['a', 'b']);

    const relay = relayStream(sink, reply, upperCase(), { brokeOff });
    await tick();
    const pulledWhileFull = log.pulled;
    drained.release();
    await relay;

    expect(waiting).toBe(1 + 1);
    expect(pulledWhileFull).toBe(1);
    expect(sink.writes).toEqual(['A', 'B', '.']);
  });

  it('stops reading and cancels the node exactly once when the client leaves', async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const held = gate();
    const { reply, log } = bodyOf(['a', held.held, 'b', 'c']);

    const relay = relayStream(sink, reply, upperCase(), { brokeOff });
    await tick();
    sink.leave();
    held.release();
    const outcome = await relay;

    expect(outcome.status).toBe('client_disconnected');
    expect(sink.writes).toEqual(['A']);
    expect(log.cancels).toBe(1);
    expect(log.pulled).toBe(2);
  });

  it('stops at a reply that is whole before the node ended, and cancels the node once', async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const { reply, log } = bodyOf(['a', 'b', 'c']);
    let seen = 0;

    const outcome = await relayStream(
      sink,
      reply,
      upperCase({
        push: (chunk) => {
          seen += chunk.length;
          return String(seen);
        },
        done: () => seen >= 2,
      }),
      { brokeOff },
    );

    expect(outcome.status).toBe('completed');
    expect(sink.writes).toEqual(['1', '2', '.']);
    expect(log.pulled).toBe(2);
    expect(log.cancels).toBe(1);
  });

  it('reports a chunk it cannot read after the first byte in band, ends the stream, and appends nothing', async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const { reply, log } = bodyOf(['a', 'BAD', 'c']);

    const outcome = await relayStream(sink, reply, upperCase(), { brokeOff });

    expect(outcome.status).toBe('incomplete');
    expect(outcome.failure?.message).toBe('unreadable');
    expect(sink.writes).toEqual(['A', '!unreadable!']);
    expect(sink.ended).toBe(true);
    expect(log.cancels).toBe(1);
  });

  it("reports a node body that breaks off as the caller's failure, in band", async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const { reply, log } = bodyOf(['a', new Error('other side closed')]);

    const outcome = await relayStream(sink, reply, upperCase(), { brokeOff });

    expect(outcome.status).toBe('incomplete');
    expect(sink.writes).toEqual(['A', '!the node broke off!']);
    expect(log.cancels).toBe(1);
  });

  it('reports a reply that ends before it is whole in band', async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const { reply } = bodyOf(['a']);
    const cutShort = upperCase({
      end: () => {
        throw new UpstreamError('no last line');
      },
    });

    const outcome = await relayStream(sink, reply, cutShort, { brokeOff });

    expect(outcome.status).toBe('incomplete');
    expect(sink.writes).toEqual(['A', '!no last line!']);
  });

  it('runs beforeEnd after the closing bytes are known and before they go out', async () => {
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const { reply } = bodyOf(['a']);
    let writtenAtHook: string[] = [];

    await relayStream(sink, reply, upperCase(), {
      brokeOff,
      beforeEnd: async () => {
        writtenAtHook = [...sink.writes];
      },
    });

    expect(writtenAtHook).toEqual(['A']);
    expect(sink.writes).toEqual(['A', '.']);
  });
});

describe('relayStream keep-alives', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  const PING = 'event: ping\ndata: {"type":"ping"}\n\n';
  const pinging = (bytes: () => string = () => 'ping;') => upperCase({ keepAlive: { intervalMs: 1000, bytes } });

  it('writes the keep-alive after an interval with nothing written, and again while the node stays quiet', async () => {
    jest.useFakeTimers();
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const held = gate();
    const { reply } = bodyOf([held.held, 'a']);

    const relay = relayStream(sink, reply, pinging(), { brokeOff });
    await jest.advanceTimersByTimeAsync(999);
    const before = [...sink.writes];
    await jest.advanceTimersByTimeAsync(2001);
    const quiet = [...sink.writes];
    held.release();
    await relay;

    expect(before).toEqual([]);
    expect(quiet).toEqual(['ping;', 'ping;', 'ping;']);
    expect(sink.writes).toEqual(['ping;', 'ping;', 'ping;', 'A', '.']);
  });

  it('waits a whole interval after the last chunk it wrote, and stops with the stream', async () => {
    jest.useFakeTimers();
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const first = gate();
    const second = gate();
    const { reply } = bodyOf([first.held, 'a', second.held, 'b']);

    const relay = relayStream(sink, reply, pinging(), { brokeOff });
    jest.advanceTimersByTime(600);
    first.release();
    await jest.advanceTimersByTimeAsync(0);
    jest.advanceTimersByTime(999);
    const afterChunk = [...sink.writes];
    jest.advanceTimersByTime(1);
    const afterInterval = [...sink.writes];
    second.release();
    await relay;
    jest.advanceTimersByTime(5000);

    expect(afterChunk).toEqual(['A']);
    expect(afterInterval).toEqual(['A', 'ping;']);
    expect(sink.writes).toEqual(['A', 'ping;', 'B', '.']);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops when the client leaves, after a failure, and once the converter has nothing more to say', async () => {
    jest.useFakeTimers();
    const left = createRecordingSink();
    const failed = createRecordingSink();
    const silent = createRecordingSink();
    for (const sink of [left, failed, silent]) sink.start({ statusCode: 200 });
    const heldLeft = gate();
    const heldSilent = gate();

    const leaving = relayStream(left, bodyOf([heldLeft.held, 'a']).reply, pinging(), { brokeOff });
    const failing = relayStream(failed, bodyOf(['BAD']).reply, pinging(), { brokeOff });
    const quiet = relayStream(
      silent,
      bodyOf([heldSilent.held]).reply,
      pinging(() => ''),
      { brokeOff },
    );
    left.leave();
    await failing;
    jest.advanceTimersByTime(5000);
    const timersWhileHeld = jest.getTimerCount();
    const silentWhileHeld = [...silent.writes];
    heldLeft.release();
    heldSilent.release();
    await Promise.all([leaving, quiet]);

    expect(timersWhileHeld).toBe(0);
    expect(left.writes).toEqual([]);
    expect(failed.writes).toEqual(['!unreadable!']);
    expect(silentWhileHeld).toEqual([]);
  });

  it('never writes a keep-alive on a buffered host', async () => {
    jest.useFakeTimers();
    const sink = createRecordingSink(false);
    sink.start({ statusCode: 200 });
    const held = gate();

    const relay = relayStream(sink, bodyOf([held.held, 'a']).reply, pinging(), { brokeOff });
    jest.advanceTimersByTime(5000);
    held.release();
    await relay;

    expect(sink.writes).toEqual(['A', '.']);
  });

  it("writes an Anthropic stream's pings while the node is quiet, between its events", async () => {
    jest.useFakeTimers();
    const sink = createRecordingSink();
    sink.start({ statusCode: 200 });
    const held = gate();
    const line = (content: string, done = false): OllamaChatChunk => ({
      model: 'qwen3:8b',
      message: { role: 'assistant', content },
      done,
      ...(done ? { done_reason: 'stop', prompt_eval_count: 12, eval_count: 3 } : {}),
    });
    const ndjson = (chunk: OllamaChatChunk) => `${JSON.stringify(chunk)}\n`;
    const output = createAnthropicOutput({
      id: 'msg_01',
      model: 'qwen3:8b',
      streaming: true,
      stopSequences: [],
      options: undefined,
      showThinking: true,
      pingIntervalMs: 1000,
    });
    const { reply } = bodyOf([ndjson(line('Hi')), held.held, ndjson(line('', true))]);

    const relay = relayStream(sink, reply, new ChatConverter(output), { brokeOff });
    await jest.advanceTimersByTimeAsync(0);
    jest.advanceTimersByTime(1000);
    held.release();
    await relay;

    expect(sink.writes[0]).toContain('event: message_start');
    expect(sink.writes[1]).toBe(PING);
    expect(sink.writes.slice(2).join('')).toContain('event: message_stop');
    expect(sink.writes.filter((write) => write === PING)).toHaveLength(1);
  });
});
