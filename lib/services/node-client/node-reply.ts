/**
 * A node's reply as undici's dispatcher hands it over (ARCHITECTURE.md §3.7): the status and
 * headers, then the body's chunks as the socket yields them. ("Dispatcher" here is undici's connection-level
 * word; the router's own dispatcher, which picks the node, is lib/services/dispatch/dispatcher.) It is
 * undici's dispatch handler itself — one small object per request where `request()` builds a Readable, its
 * async iterator, an AbortSignal listener and a promise per chunk. Chunks wait in a short list and the
 * socket pauses while the reader is behind
 * (back-pressure); `readAll` takes a whole reply with no per-chunk work; `cancel` aborts the node
 * request at once and frees its connection.
 *
 * It speaks the dispatcher's callback interface (`onConnect`, `onHeaders`, `onData`, `onComplete`,
 * `onError`), the one undici's own `request()` is built on; undici is pinned, so it cannot shift.
 */
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../../core/errors';
import { type AbortSource, watchAbort } from '../../core/stream/abort-source';

/** Bytes a reader may leave unread before the node's socket is paused. */
const HIGH_WATER_BYTES = 64 * 1024;

export interface NodeReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: AsyncIterable<Uint8Array>;
  /** Stops reading and closes the connection to the node; safe to call more than once. */
  cancel(): void;
  /** The whole body, at most `limitBytes` (over it: the reply is cancelled and this rejects). */
  readAll?(limitBytes: number): Promise<Buffer>;
}

type Settle = { resolve(value: IteratorResult<Uint8Array>): void; reject(error: unknown): void };

function flattenHeaders(raw: readonly Buffer[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as Buffer).toString('latin1').toLowerCase();
    const value = (raw[index + 1] as Buffer).toString('latin1');
    const previous = headers[name];
    headers[name] = previous === undefined ? value : `${previous}, ${value}`;
  }
  return headers;
}

export class StreamedNodeReply implements NodeReply, Dispatcher.DispatchHandler, AsyncIterable<Uint8Array> {
  status = 0;
  private rawHeaders: Buffer[] = [];
  private headerMap: Record<string, string> | undefined;
  private abortRequest: ((reason?: Error) => void) | undefined;
  private resumeSocket: (() => void) | undefined;
  private paused = false;
  private chunks: Buffer[] = [];
  private bufferedBytes = 0;
  private done = false;
  private failure: Error | undefined;
  private cancelled = false;
  /** A reader waiting for the next chunk. */
  private waiting: Settle | undefined;
  /** `readAll`'s collector: every chunk goes to it, the end resolves it. */
  private collector: { limit: number; resolve(body: Buffer): void; reject(error: unknown): void } | undefined;

  private unwatch: (() => void) | undefined;

  /**
   * @param onStart called once with the reply when its headers arrive, or with the error that came first.
   * @param abortSource the client: when it goes away, the node request is aborted, whatever its stage.
   */
  constructor(
    private readonly onStart: (error: Error | undefined, reply: StreamedNodeReply) => void,
    abortSource?: AbortSource,
  ) {
    if (abortSource === undefined) return;
    if (abortSource.aborted) {
      this.cancelled = true;
      return;
    }
    this.unwatch = watchAbort(abortSource, () => this.cancel());
  }

  get headers(): Readonly<Record<string, string>> {
    this.headerMap ??= flattenHeaders(this.rawHeaders);
    return this.headerMap;
  }

  get body(): AsyncIterable<Uint8Array> {
    return this;
  }

  // --- the dispatcher's side --------------------------------------------------------------------

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.cancelled) abort(new UpstreamError('the node request was cancelled'));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx (100 Continue) comes before the real answer.
    if (statusCode < 200) return true;
    this.status = statusCode;
    this.rawHeaders = rawHeaders;
    this.resumeSocket = resume;
    this.onStart(undefined, this);
    return !this.paused;
  }

  onData(chunk: Buffer): boolean {
    if (this.cancelled) return true;
    const collector = this.collector;
    if (collector !== undefined) {
      this.chunks.push(chunk);
      this.bufferedBytes += chunk.length;
      if (this.bufferedBytes > collector.limit) {
        this.collector = undefined;
        collector.reject(new UpstreamError(`the node's reply is larger than ${collector.limit} bytes`));
        this.cancel();
      }
      return true;
    }
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting.resolve({ done: false, value: chunk });
      return true;
    }
    this.chunks.push(chunk);
    this.bufferedBytes += chunk.length;
    if (this.bufferedBytes >= HIGH_WATER_BYTES) this.paused = true;
    return !this.paused;
  }

  onComplete(): void {
    this.done = true;
    this.settle();
    const collector = this.collector;
    if (collector !== undefined) {
      this.collector = undefined;
      collector.resolve(this.takeAll());
      return;
    }
    const waiting = this.waiting;
    if (waiting !== undefined && this.chunks.length === 0) {
      this.waiting = undefined;
      waiting.resolve({ done: true, value: undefined });
    }
  }

  onError(error: Error): void {
    if (this.done) return;
    this.done = true;
    this.settle();
    if (this.status === 0) {
      this.failure = error;
      this.onStart(error, this);
      return;
    }
    // A cancelled reply's readers were settled by `cancel`: the abort's own error is not news to them.
    if (this.cancelled) return;
    this.failure = error;
    const collector = this.collector;
    if (collector !== undefined) {
      this.collector = undefined;
      collector.reject(error);
    }
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting.reject(error);
    }
  }

  // --- the reader's side ------------------------------------------------------------------------

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.settle();
    this.chunks = [];
    this.bufferedBytes = 0;
    if (!this.done) this.abortRequest?.(new UpstreamError('the node request was cancelled'));
    const collector = this.collector;
    if (collector !== undefined) {
      this.collector = undefined;
      collector.reject(this.failure ?? new UpstreamError('the node request was cancelled'));
    }
    // A reader still waiting ends: nothing more will come.
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting.resolve({ done: true, value: undefined });
    }
  }

  readAll(limitBytes: number): Promise<Buffer> {
    if (this.cancelled) return Promise.reject(new UpstreamError('the node request was cancelled'));
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.bufferedBytes > limitBytes) {
      this.cancel();
      return Promise.reject(new UpstreamError(`the node's reply is larger than ${limitBytes} bytes`));
    }
    if (this.done) return Promise.resolve(this.takeAll());
    return new Promise((resolve, reject) => {
      this.collector = { limit: limitBytes, resolve, reject };
      this.unpause();
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return { next: () => this.next(), return: () => this.stop() };
  }

  private next(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.chunks.shift();
    if (chunk !== undefined) {
      this.bufferedBytes -= chunk.length;
      if (this.bufferedBytes < HIGH_WATER_BYTES) this.unpause();
      return Promise.resolve({ done: false, value: chunk });
    }
    // The reader that cancelled sees the body end; the abort's own error is not news to it.
    if (this.cancelled) return Promise.resolve({ done: true, value: undefined });
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.done) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.unpause();
    });
  }

  /** A reader that stops early (`break` in `for await`) frees the node's connection. */
  private stop(): Promise<IteratorResult<Uint8Array>> {
    this.cancel();
    return Promise.resolve({ done: true, value: undefined });
  }

  /** The request is over: the client leaving no longer concerns it. */
  private settle(): void {
    const unwatch = this.unwatch;
    this.unwatch = undefined;
    unwatch?.();
  }

  private unpause(): void {
    if (!this.paused) return;
    this.paused = false;
    this.resumeSocket?.();
  }

  private takeAll(): Buffer {
    const chunks = this.chunks;
    this.chunks = [];
    this.bufferedBytes = 0;
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  }
}
