import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { LambdaResponseStream } from '../../../emulator/lambda-runtime';

/** What the stream does to its response, recorded; the response finishes a turn after `end`. */
class FakeResponse extends EventEmitter {
  readonly calls: string[] = [];
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  refuseHeaders = false;
  /** The socket's write fails as the client leaves: Node reads the reply as ended and flushed, never 'finish'. */
  failWrite = false;

  constructor(private readonly name: string) {
    super();
  }

  cork(): void {}
  uncork(): void {}

  writeHead(status: number, headers: Record<string, string>): this {
    if (this.refuseHeaders) throw new TypeError('Invalid character in header content');
    this.headersSent = true;
    this.calls.push(`${this.name} head ${status} ${headers['content-length']}`);
    return this;
  }

  end(chunk: string, encoding: BufferEncoding | (() => void), done?: () => void): this {
    this.writableEnded = true;
    this.calls.push(`${this.name} end ${chunk}`);
    const callback = typeof encoding === 'function' ? encoding : done;
    if (this.failWrite) {
      this.writableFinished = true;
      return this;
    }
    setImmediate(() => {
      this.writableFinished = true;
      // As Node's server does for every response: its own 'finish' listener, the first, closes it a tick later.
      process.nextTick(() => this.emit('close'));
      callback?.();
    });
    return this;
  }

  /** The client leaves, as Node reports it. */
  leave(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

/** A reply written whole; `inCompany`: other invocations are in flight. */
function whole(name: string, inCompany = true, response = new FakeResponse(name)) {
  const stream = new LambdaResponseStream(response as unknown as ServerResponse, () => inCompany);
  stream.setPrelude({ statusCode: 200, headers: { 'content-type': 'application/json' } });
  const errors: string[] = [];
  stream.on('error', (error) => errors.push(error.message));
  // The runtime's way to end a reply written whole: write, then end with no chunk.
  stream.write(`{"${name}":true}`);
  // The end's callback hears how the stream ended: finished, or failed with the stream's error.
  const ended = new Promise<string>((resolve) => {
    stream.end((error?: Error | null) => resolve(error ? `failed: ${error.message}` : 'finished'));
  });
  return { response, stream, errors, ended };
}

describe('LambdaResponseStream', () => {
  it('fails at once over a response whose client has already left', async () => {
    const response = new FakeResponse('gone');
    response.destroyed = true;
    const stream = new LambdaResponseStream(response as unknown as ServerResponse);
    const error = new Promise<string>((resolve) => stream.on('error', (cause) => resolve(cause.message)));

    expect(stream.destroyed).toBe(true);
    await expect(error).resolves.toBe('client disconnected');
  });
});

describe('LambdaResponseStream, a reply written whole', () => {
  it('goes out at the end of its turn, with the replies of the same turn, prelude and length at once', async () => {
    const first = whole('a');
    const second = whole('b');
    await Promise.resolve();

    expect([...first.response.calls, ...second.response.calls]).toEqual([]);

    await new Promise((resolve) => setImmediate(resolve));

    expect(first.response.calls).toEqual(['a head 200 10', 'a end {"a":true}']);
    expect(second.response.calls).toEqual(['b head 200 10', 'b end {"b":true}']);
    await expect(first.ended).resolves.toBe('finished');
    await expect(second.ended).resolves.toBe('finished');
  });

  it('goes out at once when no other invocation is in flight', async () => {
    const alone = whole('a', false);

    expect(alone.response.calls).toEqual(['a head 200 10', 'a end {"a":true}']);
    await expect(alone.ended).resolves.toBe('finished');
  });

  it('is not written when the client left before the turn ended, and its stream fails', async () => {
    const reply = whole('gone');
    reply.response.leave();

    await expect(reply.ended).resolves.toBe('failed: client disconnected');
    expect(reply.response.calls).toEqual([]);
    expect(reply.stream.destroyed).toBe(true);
  });

  it('finishes, not fails, when the response closes after it went out', async () => {
    for (const inCompany of [false, true]) {
      const reply = whole('sent', inCompany);
      const closed = new Promise((resolve) => reply.response.once('close', resolve));

      await expect(reply.ended).resolves.toBe('finished');
      await closed;
      await new Promise((resolve) => setImmediate(resolve));
      expect(reply.errors).toEqual([]);
    }
  });

  it('fails its stream, not holds it open, when the client leaves as the reply goes out', async () => {
    const response = new FakeResponse('cut');
    response.failWrite = true;
    const reply = whole('cut', false, response);
    await new Promise((resolve) => setImmediate(resolve));
    response.leave();
    // A stream that waits for a 'finish' Node never emits would still be open when the timer fires.
    const turns = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 50));

    await expect(Promise.race([reply.ended, turns])).resolves.toBe('failed: client disconnected');
    expect(response.calls).toEqual(['cut head 200 12', 'cut end {"cut":true}']);
    expect(reply.stream.destroyed).toBe(true);
  });

  it('fails its stream when the response was answered first (a time-out in the same turn)', async () => {
    const reply = whole('late');
    reply.response.writableEnded = true;

    await expect(reply.ended).resolves.toBe('failed: the reply was already answered');
    expect(reply.response.calls).toEqual([]);
    expect(reply.errors).toEqual(['the reply was already answered']);
  });

  it('fails its stream, not the process, when Node refuses its headers', async () => {
    const reply = whole('bad');
    reply.response.refuseHeaders = true;

    await expect(reply.ended).resolves.toBe('failed: Invalid character in header content');
    expect(reply.errors).toEqual(['Invalid character in header content']);
  });
});
