/**
 * A faithful stand-in for the parts of the Node Lambda runtime that streaming handlers touch
 * (research: serverless-stack §2–3): `awslambda.streamifyResponse` marks a handler as streaming with the
 * runtime's own symbol; `awslambda.HttpResponseStream.from` attaches the prelude (status, headers,
 * cookies), which goes out only on the first write — a stream ended with no write sends no prelude.
 * `LambdaResponseStream` is the Writable a handler writes to: each chunk goes to the socket by the end of
 * the turn of the event loop it was written in, with back-pressure, and the stream is destroyed when the
 * client goes away.
 */
import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { EndOfTurn } from '../lib/services/platform/end-of-turn';

export const STREAMING_SYMBOL = Symbol.for('aws.lambda.runtime.handler.streaming');

interface Prelude {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

type Marked = { [STREAMING_SYMBOL]?: string };

/**
 * Adds the streaming API to `globalThis.awslambda`. The object may exist already: the AWS SDK creates an
 * empty one for its invoke store when it loads, so the methods are added to it, not skipped.
 */
export function installAwsLambdaGlobal(): void {
  const existing: unknown = Reflect.get(globalThis, 'awslambda');
  const target = (typeof existing === 'object' && existing !== null ? existing : {}) as Record<string, unknown>;
  if (typeof target['streamifyResponse'] !== 'function') {
    target['streamifyResponse'] = <T extends object>(handler: T): T => {
      (handler as Marked)[STREAMING_SYMBOL] = 'response';
      return handler;
    };
  }
  if (target['HttpResponseStream'] === undefined) {
    target['HttpResponseStream'] = {
      from(stream: LambdaResponseStream, prelude: Prelude): LambdaResponseStream {
        stream.setContentType('application/vnd.awslambda.http-integration-response');
        stream.setPrelude(prelude);
        return stream;
      },
    };
  }
  Reflect.set(globalThis, 'awslambda', target);
}

export function isStreamingHandler(handler: unknown): boolean {
  return typeof handler === 'function' && (handler as Marked)[STREAMING_SYMBOL] === 'response';
}

type Headers = Record<string, string | string[]>;

/**
 * The prelude's headers with the body's length, unless they set a length or framing of their own. A new
 * object given whole to `writeHead`: a header set on the response first sends Node down its slow path,
 * which sets and checks every header twice.
 */
function withLength(headers: Headers | undefined, length: number): Headers {
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (lower === 'content-length' || lower === 'transfer-encoding') return headers;
  }
  return Object.assign({ 'content-length': String(length) }, headers);
}

/** Streams corked during this turn of the event loop, written to their sockets at its end. */
const corkedThisTurn = new EndOfTurn<LambdaResponseStream>((stream) => stream.uncorkNow());

type FinalCallback = (error?: Error | null) => void;

/** A reply written whole in one turn, waiting for the end of it to go out with the turn's others. */
interface WholeReply {
  readonly chunk: Buffer | string;
  readonly encoding: BufferEncoding;
  readonly callback: FinalCallback;
}

export class LambdaResponseStream extends Writable {
  private readonly response: ServerResponse;
  private prelude: Prelude | undefined;
  private contentType = 'application/octet-stream';
  private firstWriteDone = false;

  /**
   * `inCompany`: whether other invocations are in flight. A reply written whole then goes out at the end
   * of its turn with the turn's others (`_final`); alone, it goes out at once.
   */
  constructor(
    response: ServerResponse,
    private readonly inCompany: () => boolean = () => false,
  ) {
    // Strings go to the socket as strings: no Buffer copy per chunk.
    super({ decodeStrings: false });
    this.response = response;
    // The client went away before the reply was complete: the handler's stream errors, as in AWS. So does a
    // stream still waiting for the response's 'finish' (`whenSent`): a client that leaves as its reply goes
    // out fails the socket's write, and Node then never emits 'finish', though the response reads as ended
    // and flushed. Waiting for it would hold the invocation open for good.
    response.on('close', () => {
      if ((!response.writableFinished || this.awaitingSend) && !this.destroyed) {
        this.destroy(new Error('client disconnected'));
      }
    });
    // Gone already (it left while its handler waited for the end of a turn): the handler hears it at once.
    if (response.destroyed) this.destroy(new Error('client disconnected'));
  }

  setContentType(contentType: string): void {
    this.contentType = contentType;
  }

  setPrelude(prelude: Prelude): void {
    this.prelude = prelude;
  }

  /** True once the status line and headers went to the client. */
  get headersSent(): boolean {
    return this.response.headersSent;
  }

  /** The stream ended and waits for the response's 'finish' to finish in turn. */
  private awaitingSend = false;

  /** `callback`, to run on the response's 'finish'; until then a 'close' fails this stream. */
  private whenSent(callback: FinalCallback): () => void {
    this.awaitingSend = true;
    return () => {
      this.awaitingSend = false;
      callback();
    };
  }

  /** `length`: the body's bytes when the whole body is known now (a reply ended whole). */
  private sendHeaders(length?: number): void {
    if (this.response.headersSent) return;
    if (this.prelude === undefined) {
      // No prelude: the runtime passes the raw bytes with the stream's own content type.
      this.response.writeHead(200, { 'content-type': this.contentType });
      return;
    }
    const { statusCode = 200, headers, cookies } = this.prelude;
    const withCookies = cookies !== undefined && cookies.length > 0 ? { ...headers, 'set-cookie': cookies } : headers;
    // Node frames a reply whose headers go out before its body as chunked; with the length known the
    // client gets a plain `Content-Length` body instead: no chunk framing to write or parse.
    const framed =
      length !== undefined && statusCode >= 200 && statusCode !== 204 && statusCode !== 304
        ? withLength(withCookies, length)
        : withCookies;
    this.response.writeHead(statusCode, framed);
  }

  /**
   * Coalesces what the handler writes in one turn of the event loop (headers, a chunk, the end) into one
   * socket write; it goes out before the loop next waits for I/O, so no chunk is held back. The responses
   * corked in a turn are written together at its end (lib/services/platform/end-of-turn), not one
   * immediate per response.
   */
  private corkForTick(): void {
    if (this.corked) return;
    this.corked = true;
    this.response.cork();
    corkedThisTurn.add(this);
  }

  /** Called at the end of the turn in which this stream was corked. */
  uncorkNow(): void {
    this.corked = false;
    const whole = this.whole;
    if (whole !== undefined) {
      this.whole = undefined;
      this.sendWhole(whole);
      return;
    }
    try {
      this.flushHeld();
    } catch (error) {
      // Headers Node refuses: the handler's stream fails, as a throw in `_write` would make it.
      this.destroy(error as Error);
    }
    this.response.uncork();
  }

  /** A reply written whole in this turn: it goes out with the turn's others (`_final`). */
  private whole: WholeReply | undefined;

  /** Prelude and body in one socket write, with the body's length; the stream finishes once it is out. */
  private sendWhole({ chunk, encoding, callback }: WholeReply): void {
    // The client left: the response's 'close' destroys this stream, which fails the pending end.
    if (this.response.destroyed) return;
    if (this.response.writableEnded) {
      // The invocation timed out in this turn and the emulator answered it.
      callback(new Error('the reply was already answered'));
      return;
    }
    try {
      this.sendHeaders(typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.byteLength);
      if (typeof chunk === 'string') this.response.end(chunk, encoding, this.whenSent(callback));
      else this.response.end(chunk, this.whenSent(callback));
    } catch (error) {
      callback(error as Error);
    }
  }

  /**
   * The first chunk, held to the end of its turn of the loop. The runtime's `end` takes no chunk, so a
   * reply written whole arrives as `write(body)` then `end()`: ended in the same turn, it goes out as one
   * `response.end(body)` with its length (`_final`, `sendWhole`), at once when alone, else at the end of
   * the turn with the turn's other replies; not ended in its turn, it goes out when the turn ends.
   */
  private held: { readonly chunk: Buffer | string; readonly encoding: BufferEncoding } | undefined;

  private flushHeld(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    if (this.response.writableEnded || this.response.destroyed) return;
    this.sendHeaders();
    if (held.chunk.length === 0) return;
    if (typeof held.chunk === 'string') this.response.write(held.chunk, held.encoding);
    else this.response.write(held.chunk);
  }

  private corked = false;

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.corkForTick();
    if (!this.firstWriteDone) {
      this.firstWriteDone = true;
      this.held = { chunk, encoding };
      callback();
      return;
    }
    this.flushHeld();
    if (chunk.length === 0) {
      callback();
      return;
    }
    if (typeof chunk === 'string' ? this.response.write(chunk, encoding) : this.response.write(chunk)) {
      callback();
      return;
    }
    const onDrain = () => {
      this.response.off('close', onClose);
      callback();
    };
    const onClose = () => {
      this.response.off('drain', onDrain);
      callback(new Error('client disconnected'));
    };
    this.response.once('drain', onDrain);
    this.response.once('close', onClose);
  }

  /**
   * A reply written whole with `end(chunk)` (every non-streaming answer) goes out as one
   * `response.end(chunk)` with its `Content-Length`: prelude and body in one socket write, without the
   * trip through the Writable's write queue, a cork held to the next turn of the loop, or chunk framing.
   * The Writable then ends as usual (`_final` waits for the response to finish), so `finish`, callbacks
   * and errors are unchanged. Nothing streams either way: the whole body was there at once.
   */
  override end(callback?: () => void): this;
  override end(chunk: unknown, callback?: () => void): this;
  override end(chunk: unknown, encoding: BufferEncoding, callback?: () => void): this;
  override end(first?: unknown, second?: unknown, third?: unknown): this {
    const whole = typeof first === 'string' || first instanceof Uint8Array;
    const encoding = typeof second === 'string' ? (second as BufferEncoding) : 'utf8';
    const untouched = !this.firstWriteDone && !this.corked && this.writableLength === 0 && this.writableCorked === 0;
    if (!whole || !untouched || this.writableEnded || this.destroyed) {
      return super.end(first as string, second as BufferEncoding, third as () => void);
    }
    this.firstWriteDone = true;
    this.sendHeaders(typeof first === 'string' ? Buffer.byteLength(first, encoding) : first.byteLength);
    if (typeof first === 'string') this.response.end(first, encoding);
    else this.response.end(first);
    return super.end((typeof second === 'function' ? second : third) as (() => void) | undefined);
  }

  override _final(callback: FinalCallback): void {
    // Ending without a single write sends no prelude in AWS: status and headers are lost. Mirror it.
    if (!this.firstWriteDone) this.prelude = undefined;
    const held = this.held;
    if (held !== undefined && !this.response.headersSent) {
      // Written whole in one turn: in company, sent at the end of it with the others (`uncorkNow`).
      this.held = undefined;
      const whole = { chunk: held.chunk, encoding: held.encoding, callback };
      if (!this.inCompany()) {
        this.sendWhole(whole);
        return;
      }
      this.whole = whole;
      if (!this.corked) this.corkForTick();
      return;
    }
    this.flushHeld();
    if (!this.response.headersSent) this.sendHeaders();
    if (this.response.writableEnded) {
      // Ended by the whole-reply path of `end`; a client that leaves first destroys this stream instead.
      if (this.response.writableFinished) callback();
      else this.response.once('finish', this.whenSent(callback));
      return;
    }
    this.corkForTick();
    this.response.end(this.whenSent(callback));
  }
}
