/**
 * Where a route writes its reply. One interface, two hosts (ARCHITECTURE.md §3.1):
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

/**
 * A reply that failed without the route throwing — an error written in band after the first byte, a
 * client that left mid-stream, a node's refusal the route answered itself — as the route notes it for the
 * operator's one log line about the request (lib/services/http/log-request).
 */
export interface FailedReply {
  readonly outcome: 'failed' | 'incomplete' | 'client_disconnected';
  /** The HTTP status that went out (200 for a stream that failed in band). */
  readonly status: number;
  /** What the client was told, when it was told anything. */
  readonly message?: string;
  /** The technical cause, for the operator only. */
  readonly detail?: string;
  readonly nodeId?: string;
  readonly model?: string;
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
  /** What the route noted about a reply that failed without throwing (`noteFailure`). */
  readonly failure: FailedReply | undefined;
  noteFailure(failure: FailedReply): void;
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

const ENDED: Promise<void> = Promise.resolve();

const OK: ResponseMeta = Object.freeze({ statusCode: 200 });

/**
 * The streaming sink. A class, never an object literal with getters: V8 puts such a literal, made
 * afresh per request with its own closures, in dictionary mode, and with the sink built that way every
 * request's closures and the streams they reach survived young-generation collections until the next
 * full one (measured: 7× the scavenge time for the same requests, and about two full collections a second).
 */
class StreamingSink implements ResponseSink {
  readonly streaming = true;
  // Created on first use: most replies are written and ended without anyone watching for a disconnect.
  private controller: AbortController | undefined;
  private events: ClientGone | undefined;
  private gone = false;
  private out: Writable | undefined;
  private isEnded = false;
  private wrote = false;
  failure: FailedReply | undefined = undefined;

  constructor(
    private readonly raw: Writable,
    private readonly withPrelude: PreludeWriter | undefined,
  ) {
    const onGone = () => this.onGone();
    raw.on('close', onGone);
    // A destroyed stream emits 'error'; without a listener that would crash the process.
    raw.on('error', onGone);
  }

  private onGone(): void {
    if (this.isEnded || this.gone) return;
    this.gone = true;
    this.controller?.abort(new Error('client disconnected'));
    this.events?.fire();
  }

  // The route's meta is handed on as it is, not copied: every route builds its headers afresh, and the
  // runtime serialises the prelude when it gets it (the emulator's stand-in reads it, never changes it).
  private open(meta: ResponseMeta = OK): Writable {
    this.out ??= this.withPrelude === undefined ? this.raw : this.withPrelude(this.raw, meta);
    return this.out;
  }

  get started(): boolean {
    return this.out !== undefined;
  }

  get ended(): boolean {
    return this.isEnded;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort(new Error('client disconnected'));
    }
    return this.controller.signal;
  }

  get clientGone(): ClientGone {
    if (this.events === undefined) {
      this.events = new ClientGone();
      if (this.gone) this.events.aborted = true;
    }
    return this.events;
  }

  start(meta: ResponseMeta): void {
    if (this.out !== undefined) throw new Error('response already started');
    this.open(meta);
  }

  noteFailure(failure: FailedReply): void {
    this.failure = failure;
  }

  async write(chunk: string | Uint8Array): Promise<void> {
    const stream = this.open();
    if (this.gone || stream.destroyed) return;
    this.wrote = true;
    if (!stream.write(chunk)) await firstOf(stream, ['drain', 'close']);
  }

  // Not async: every reply ends here, and the one promise it needs is the stream's own end.
  end(chunk?: string | Uint8Array): Promise<void> {
    if (this.isEnded) return ENDED;
    let stream: Writable;
    try {
      stream = this.open();
    } catch (error) {
      return Promise.reject(error);
    }
    this.isEnded = true;
    if (stream.destroyed) return ENDED;
    // The prelude goes out with the first write only, so a reply ended without one still writes ''.
    // It is written with `write`: the runtime's stream takes one argument in `end` (aws-lambda-ric
    // ResponseStream), so a chunk given there skips the first-write hook that sends the prelude, and a
    // callback after it is dropped. The runtime fails an invocation whose stream is not finished: wait for it.
    const last = chunk ?? (this.wrote ? undefined : '');
    if (last !== undefined) stream.write(last);
    return new Promise<void>((resolve) => {
      stream.end(() => resolve());
    });
  }
}

export function createStreamingSink(raw: Writable, withPrelude?: PreludeWriter): ResponseSink {
  return new StreamingSink(raw, withPrelude);
}

export interface BufferedResult {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: string;
  isBase64Encoded: boolean;
}

const textType = /^(text\/|application\/(json|x-ndjson|javascript|xml)|image\/svg)|[+]json|[+]xml/i;

/** The buffered sink: a class for the same reason as the streaming one. */
class BufferedSink implements ResponseSink {
  readonly streaming = false;
  readonly signal = new AbortController().signal;
  readonly clientGone = new ClientGone();
  private meta: ResponseMeta | undefined;
  private isEnded = false;
  private readonly chunks: Buffer[] = [];
  failure: FailedReply | undefined = undefined;

  noteFailure(failure: FailedReply): void {
    this.failure = failure;
  }

  get started(): boolean {
    return this.meta !== undefined;
  }

  get ended(): boolean {
    return this.isEnded;
  }

  start(meta: ResponseMeta): void {
    if (this.meta !== undefined) throw new Error('response already started');
    this.meta = meta;
  }

  async write(chunk: string | Uint8Array): Promise<void> {
    this.meta ??= { statusCode: 200 };
    this.push(chunk);
  }

  async end(chunk?: string | Uint8Array): Promise<void> {
    this.meta ??= { statusCode: 200 };
    this.push(chunk);
    this.isEnded = true;
  }

  private push(chunk: string | Uint8Array | undefined): void {
    if (chunk === undefined) return;
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  }

  result(): BufferedResult {
    const final = this.meta ?? { statusCode: 200 };
    const headers = { ...final.headers };
    const bytes = Buffer.concat(this.chunks);
    const contentType = headers['content-type'] ?? '';
    // Compressed text is bytes too (the dashboard page's assets).
    const binary =
      bytes.length > 0 &&
      contentType !== '' &&
      (!textType.test(contentType) || headers['content-encoding'] !== undefined);
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
  }
}

export function createBufferedSink(): { sink: ResponseSink; result(): BufferedResult } {
  const sink = new BufferedSink();
  return { sink, result: () => sink.result() };
}
