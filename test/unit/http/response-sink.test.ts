import { PassThrough } from 'node:stream';
import { describe, expect, it, jest } from '@jest/globals';
import { createBufferedSink, createStreamingSink } from '../../../lib/http/response-sink';

describe('createStreamingSink', () => {
  it('tells clientGone listeners and aborts the signal, once, when the client leaves mid-reply', async () => {
    const raw = new PassThrough();
    const sink = createStreamingSink(raw);
    const gone = jest.fn();
    sink.clientGone.on('abort', gone);
    const signal = sink.signal;
    await sink.write('partial');

    raw.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    raw.emit('close');

    expect(gone).toHaveBeenCalledTimes(1);
    expect(sink.clientGone.aborted).toBe(true);
    expect(signal.aborted).toBe(true);
  });

  it('reports a client that left before anyone asked as already gone', async () => {
    const raw = new PassThrough();
    const sink = createStreamingSink(raw);

    raw.destroy();
    await new Promise((resolve) => setImmediate(resolve));

    expect(sink.clientGone.aborted).toBe(true);
    expect(sink.signal.aborted).toBe(true);
  });

  it('does not report a reply that ended normally as a client leaving', async () => {
    const raw = new PassThrough();
    raw.resume();
    const sink = createStreamingSink(raw);
    const gone = jest.fn();
    sink.clientGone.on('abort', gone);

    await sink.end('whole reply');
    raw.destroy();
    await new Promise((resolve) => setImmediate(resolve));

    expect(gone).not.toHaveBeenCalled();
    expect(sink.clientGone.aborted).toBe(false);
  });
});

describe('createBufferedSink', () => {
  it('never reports the client as gone', async () => {
    const { sink } = createBufferedSink();
    await sink.end('{}');

    expect(sink.clientGone.aborted).toBe(false);
    expect(sink.signal.aborted).toBe(false);
  });
});
