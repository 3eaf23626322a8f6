import { PassThrough } from 'node:stream';
import { describe, expect, it, jest } from '@jest/globals';
import { createBufferedSink, createStreamingSink } from '../../../../lib/services/http/response-sink';
import { hasFastProperties, haveSameMap } from '../../../helpers/hidden-class';

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

  // An object literal with getters goes to dictionary mode; V8 then moved those sinks to old space, and
  // with them every request's closures and streams until the next full collection.
  it('builds every sink with fast properties and one shared hidden class', () => {
    const sinks = Array.from({ length: 20 }, () => createStreamingSink(new PassThrough()));
    const buffered = Array.from({ length: 20 }, () => createBufferedSink().sink);

    for (const sink of [sinks[19], buffered[19]] as object[]) expect(hasFastProperties(sink)).toBe(true);
    expect(haveSameMap(sinks[18] as object, sinks[19] as object)).toBe(true);
    expect(haveSameMap(buffered[18] as object, buffered[19] as object)).toBe(true);
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
