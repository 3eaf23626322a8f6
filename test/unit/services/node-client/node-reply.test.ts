import { describe, expect, it } from '@jest/globals';
import { UpstreamError } from '../../../../lib/core/errors';
import { ClientGone } from '../../../../lib/services/http/response-sink';
import { StreamedNodeReply } from '../../../../lib/services/node-client/node-reply';

/** Drives the reply as undici's dispatcher would, and records what the reply asked of it. */
function dispatched(abortSource?: ClientGone) {
  const log = { aborted: [] as (Error | undefined)[], resumed: 0, started: [] as (Error | undefined)[] };
  const reply = new StreamedNodeReply((error) => log.started.push(error), abortSource);
  reply.onConnect((reason) => {
    log.aborted.push(reason);
    // undici reports an aborted request through onError.
    reply.onError(reason ?? new Error('aborted'));
  });
  const headers = (status = 200, raw: string[] = ['Content-Type', 'application/x-ndjson']) =>
    reply.onHeaders(
      status,
      raw.map((part) => Buffer.from(part)),
      () => {
        log.resumed += 1;
      },
    );
  return { reply, log, headers };
}

const bytes = (text: string) => Buffer.from(text);

async function collect(reply: StreamedNodeReply): Promise<string[]> {
  const seen: string[] = [];
  for await (const chunk of reply.body) seen.push(Buffer.from(chunk).toString());
  return seen;
}

describe('StreamedNodeReply', () => {
  it('starts on the final status, not on a 1xx, with headers lower-cased and repeats joined', () => {
    const { reply, log, headers } = dispatched();
    expect(headers(100)).toBe(true);
    expect(log.started).toEqual([]);
    headers(200, ['X-Fleet', 'a', 'x-fleet', 'b', 'Content-Type', 'application/json']);
    expect(log.started).toEqual([undefined]);
    expect(reply.status).toBe(200);
    expect(reply.headers).toEqual({ 'x-fleet': 'a, b', 'content-type': 'application/json' });
  });

  it('hands a connection error before the headers to the opener', () => {
    const { reply, log } = dispatched();
    const refused = new Error('connect ECONNREFUSED');
    reply.onError(refused);
    expect(log.started).toEqual([refused]);
  });

  it('yields the chunks in order, those that came before the reader and those after', async () => {
    const { reply, headers } = dispatched();
    headers();
    reply.onData(bytes('one\n'));
    const reading = collect(reply);
    await Promise.resolve();
    reply.onData(bytes('two\n'));
    reply.onComplete();
    expect(await reading).toEqual(['one\n', 'two\n']);
  });

  it('pauses the socket while 64 KB wait unread, and resumes it once they are read', async () => {
    const { reply, log, headers } = dispatched();
    headers();
    expect(reply.onData(Buffer.alloc(40 * 1024))).toBe(true);
    expect(reply.onData(Buffer.alloc(40 * 1024))).toBe(false);
    const iterator = reply.body[Symbol.asyncIterator]();
    await iterator.next();
    expect(log.resumed).toBe(1);
    await iterator.next();
    reply.onComplete();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('reads a whole reply at once, with what had come before', async () => {
    const { reply, headers } = dispatched();
    headers();
    reply.onData(bytes('{"a":'));
    const whole = reply.readAll(1024);
    reply.onData(bytes('1}'));
    reply.onComplete();
    expect((await whole).toString()).toBe('{"a":1}');
  });

  it('refuses a reply over the limit and aborts the node request', async () => {
    const { reply, log, headers } = dispatched();
    headers();
    const whole = reply.readAll(8);
    reply.onData(bytes('0123456789'));
    await expect(whole).rejects.toBeInstanceOf(UpstreamError);
    expect(log.aborted).toHaveLength(1);
  });

  it('fails the reader when the reply breaks off after the headers', async () => {
    const { reply, headers } = dispatched();
    headers();
    reply.onData(bytes('one\n'));
    const reading = collect(reply);
    const reset = new Error('socket hang up');
    reply.onError(reset);
    await expect(reading).rejects.toBe(reset);
  });

  it('cancels once: the node request is aborted, a waiting reader sees the end, a whole read fails', async () => {
    const { reply, log, headers } = dispatched();
    headers();
    const iterator = reply.body[Symbol.asyncIterator]();
    const waiting = iterator.next();
    reply.cancel();
    reply.cancel();
    expect(log.aborted).toHaveLength(1);
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await expect(reply.readAll(1024)).rejects.toBeInstanceOf(Error);
  });

  it('frees the node connection when the reader stops early', async () => {
    const { reply, log, headers } = dispatched();
    headers();
    reply.onData(bytes('one\n'));
    reply.onData(bytes('two\n'));
    for await (const _ of reply.body) break;
    expect(log.aborted).toHaveLength(1);
  });

  it('aborts with the client going away, before or after the headers, and stops listening when done', () => {
    const early = new ClientGone();
    early.fire();
    const before = dispatched(early);
    expect(before.log.aborted).toHaveLength(1);
    expect(before.log.started).toHaveLength(1);

    const client = new ClientGone();
    const during = dispatched(client);
    during.headers();
    client.fire();
    expect(during.log.aborted).toHaveLength(1);

    const finished = new ClientGone();
    const completed = dispatched(finished);
    completed.headers();
    completed.reply.onComplete();
    expect(finished.listenerCount('abort')).toBe(0);
  });
});
