/**
 * Where a route writes its reply. One interface, two hosts (DESIGN decision 1):
 * - streaming: a Lambda response stream (AWS, and the emulator's faithful stand-in). Status and headers
 *   go out in the prelude on the first write; every chunk is written as it comes, awaiting back-pressure.
 * - buffered: serverless-offline and unit tests; the chunks are collected into one API Gateway result.
 * `signal` aborts when the client goes away, so upstream work can stop at once.
 */
import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * The client leaving, as an event emitter: `abort` once, and `aborted` after. Listening on an
 * `AbortSignal` costs microseconds per request (its EventTarget is set up on the first listener); this
 * costs nothing measurable, so the hot path listens here. undici takes it as a request's `signal`.
 */
export class ClientGone extends EventEmitter {
  aborted = false;

  /** Marks the client gone and tells the listeners, once. */
  fire(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

export interface ResponseMeta {
  readonly statusCode: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly cookies?: readonly string[];
}

export interface ResponseSink {
  readonly streaming: boolean;
  /** True once `start` (or the first write) fixed the status and headers. */
  readonly started: boolean;
  readonly ended: boolean;
  /** Aborted when the client disconnects before the reply ended. */
  readonly signal: AbortSignal;
  /** The same moment as `signal`, cheap to listen to: what the relay and the node request listen on. */
  readonly clientGone: ClientGone;
  /** Fixes status and headers; they go out with the first byte. */
  start(meta: ResponseMeta): void;
  write(chunk: string | Uint8Array): Promise<void>;
  end(chunk?: string | Uint8Array): Promise<void>;
}

/** Wraps the raw stream in the platform's prelude writer (`awslambda.HttpResponseStream.from`). */
export type PreludeWriter = (stream: Writable, meta: ResponseMeta) => Writable;

/** Resolves on the first of `events` (listeners are removed either way). */
function firstOf(stream: Writable, events: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of events) stream.off(event, done);
      resolve();
    };
    for (const event of events) stream.on(event, done);
  });
}

export function createStreamingSink(raw: Writable, withPrelude?: PreludeWriter): ResponseSink {
  // Created on first use: most replies are written and ended without anyone watching for a disconnect.
  let controller: AbortController | undefined;
  let events: ClientGone | undefined;
  let gone = false;
  let out: Writable | undefined;
  let ended = false;
  let wrote = false;
  const onGone = () => {
    if (ended || gone) return;
    gone = true;
    controller?.abort(new Error('client disconnected'));
    events?.fire();
  };
  raw.on('close', onGone);
  // A destroyed stream emits 'error'; without a listener that would crash the process.
  raw.on('error', onGone);

  const open = (meta: ResponseMeta = { statusCode: 200 }): Writable => {
    out ??= withPrelude === undefined ? raw : withPrelude(raw, { ...meta, headers: { ...meta.headers } });
    return out;
  };

  return {
    streaming: true,
    get started() {
      return out !== undefined;
    },
    get ended() {
      return ended;
    },
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        if (gone) controller.abort(new Error('client disconnected'));
      }
      return controller.signal;
    },
    get clientGone() {
      if (events === undefined) {
        events = new ClientGone();
        if (gone) events.aborted = true;
      }
      return events;
    },
    start(meta) {
      if (out !== undefined) throw new Error('response already started');
      open(meta);
    },
    async write(chunk) {
      const stream = open();
      if (gone || stream.destroyed) return;
      wrote = true;
      if (!stream.write(chunk)) await firstOf(stream, ['drain', 'close']);
    },
    async end(chunk) {
      if (ended) return;
      const stream = open();
      ended = true;
      if (stream.destroyed) return;
      // The prelude goes out with the first write only, so a reply ended without one still writes ''.
      // The runtime fails an invocation whose stream is not finished: wait for it.
      const last = chunk ?? (wrote ? undefined : '');
      await new Promise<void>((resolve) => {
        if (last === undefined) stream.end(() => resolve());
        else stream.end(last, () => resolve());
      });
    },
  };
}

export interface BufferedResult {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

const textType = /^(text\/|application\/(json|x-ndjson|javascript|xml)|image\/svg)|[+]json|[+]xml/i;

export function createBufferedSink(): { sink: ResponseSink; result(): BufferedResult } {
  let meta: ResponseMeta | undefined;
  let ended = false;
  const chunks: Buffer[] = [];
  const push = (chunk: string | Uint8Array | undefined) => {
    if (chunk === undefined) return;
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  };
  const sink: ResponseSink = {
    streaming: false,
    get started() {
      return meta !== undefined;
    },
    get ended() {
      return ended;
    },
    signal: new AbortController().signal,
    clientGone: new ClientGone(),
    start(next) {
      if (meta !== undefined) throw new Error('response already started');
      meta = next;
    },
    async write(chunk) {
      meta ??= { statusCode: 200 };
      push(chunk);
    },
    async end(chunk) {
      meta ??= { statusCode: 200 };
      push(chunk);
      ended = true;
    },
  };
  return {
    sink,
    result() {
      const final = meta ?? { statusCode: 200 };
      const headers = { ...final.headers };
      const bytes = Buffer.concat(chunks);
      const contentType = headers['content-type'] ?? '';
      const binary = bytes.length > 0 && contentType !== '' && !textType.test(contentType);
      const result: BufferedResult = {
        statusCode: final.statusCode,
        headers,
        body: binary ? bytes.toString('base64') : bytes.toString('utf8'),
        isBase64Encoded: binary,
      };
      if (final.cookies !== undefined && final.cookies.length > 0) {
        result.multiValueHeaders = { 'set-cookie': [...final.cookies] };
      }
      return result;
    },
  };
}
