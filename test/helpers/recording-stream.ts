/**
 * A Writable that records what a streaming handler wrote, for assertions, and behaves like the response
 * stream the Node Lambda runtime hands a streaming handler (aws-lambda-ric `ResponseStream`, research:
 * serverless-stack §2–3): `setContentType`, a hook that runs before the first `write()` only, and an
 * `end` that takes one argument, so a chunk given to `end` is written without running the hook and a
 * callback after it is dropped. `httpResponseStreamFrom` is the runtime's `HttpResponseStream.from`: on
 * the first write, the prelude as JSON and then 8 NUL bytes. `reply()` reads both back, so a test checks
 * status and headers on the streaming host the way AWS and the emulator receive them.
 */
import { Writable } from 'node:stream';
import type { ResponseMeta } from '../../lib/services/http/response-sink';

/** The content type of a stream that opens with a prelude (the Lambda HTTP integration response). */
export const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DELIMITER = Buffer.alloc(8);

type BeforeFirstWrite = (write: (chunk: string | Uint8Array) => void) => void;

/** What a client of the streaming host receives: the prelude's status and headers, and the body. */
export interface RecordedReply {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly cookies: readonly string[];
  readonly body: Buffer;
}

export class RecordingStream extends Writable {
  readonly chunks: Buffer[] = [];
  contentType: string | undefined;
  /** Set by `httpResponseStreamFrom`; the runtime calls it before the first `write()`. */
  onBeforeFirstWrite: BeforeFirstWrite | undefined;
  private firstWriteCalled = false;

  constructor(highWaterMark = 16 * 1024) {
    super({ highWaterMark });
  }

  setContentType(contentType: string): void {
    if (this.firstWriteCalled) throw new Error('Cannot set content-type, too late.');
    this.contentType = contentType;
  }

  override write(chunk: unknown, second?: unknown, third?: unknown): boolean {
    if (!this.firstWriteCalled) {
      this.firstWriteCalled = true;
      this.onBeforeFirstWrite?.((ch) => super.write(ch));
    }
    return super.write(chunk, second as BufferEncoding, third as (error: Error | null | undefined) => void);
  }

  /** As the runtime's: one argument, a callback or a chunk (written as is, past the first-write hook). */
  override end(first?: unknown): this {
    return super.end(first as () => void);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(chunk);
    callback();
  }

  /** Everything written, prelude included when there is one. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** The body as text: what follows the prelude, or everything when the stream has none. */
  text(): string {
    return this.body().toString('utf8');
  }

  /** The body's bytes (after the prelude). */
  body(): Buffer {
    const bytes = this.bytes();
    if (this.contentType !== PRELUDE_CONTENT_TYPE) return bytes;
    const end = bytes.indexOf(DELIMITER);
    return end < 0 ? bytes : bytes.subarray(end + DELIMITER.length);
  }

  /**
   * Status, headers and body as the client gets them; throws when the stream carries no prelude, as the
   * Lambda front end would fail such a reply.
   */
  reply(): RecordedReply {
    const bytes = this.bytes();
    if (this.contentType !== PRELUDE_CONTENT_TYPE) throw new Error('the stream was not opened with a prelude');
    const end = bytes.indexOf(DELIMITER);
    if (end < 0) throw new Error(`no prelude delimiter in what was written: ${JSON.stringify(bytes.toString())}`);
    const prelude = JSON.parse(bytes.subarray(0, end).toString('utf8')) as Partial<ResponseMeta>;
    if (typeof prelude.statusCode !== 'number')
      throw new Error(`the prelude has no status code: ${JSON.stringify(prelude)}`);
    return {
      statusCode: prelude.statusCode,
      headers: { ...prelude.headers },
      cookies: [...(prelude.cookies ?? [])],
      body: bytes.subarray(end + DELIMITER.length),
    };
  }
}

/** The runtime's `awslambda.HttpResponseStream.from`, over a recording stream. */
export function httpResponseStreamFrom(stream: Writable, prelude: ResponseMeta): Writable {
  if (!(stream instanceof RecordingStream)) throw new Error('httpResponseStreamFrom records on a RecordingStream');
  stream.setContentType(PRELUDE_CONTENT_TYPE);
  // JSON cannot hold a NUL byte, so the 8 NULs that follow end the prelude unambiguously.
  const json = JSON.stringify(prelude);
  stream.onBeforeFirstWrite = (write) => {
    write(json);
    write(DELIMITER);
  };
  return stream;
}
