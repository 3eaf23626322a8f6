/**
 * A chat output as the relay drives it (lib/core/stream/stream-converter): the node's NDJSON decoded
 * line by line (bounded), each line parsed and handed to the family's output (./chat-output), the bytes
 * of a node chunk returned at once — one write per node chunk. A bad line stops the reply, but what its
 * chunk held before it is still the client's: kept, and sent ahead of the in-band error. Also remembers
 * when the node's first line came, for the trace's time to first token. One per routed chat reply.
 */
import type { RouterError } from '../../core/errors';
import { createNdjsonDecoder, type DecodedLine, type NdjsonDecoder } from '../../core/stream/ndjson-decoder';
import type { KeepAlive, StreamConverter } from '../../core/stream/stream-converter';
import type { ChatOutput } from './chat-output';

/** The longest node line, and the most of a one-object answer read line by line. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export class ChatConverter<Chunk> implements StreamConverter {
  private readonly decoder: NdjsonDecoder = createNdjsonDecoder({ maxLineBytes: MAX_LINE_BYTES });
  /** The client's bytes read but not yet returned (a bad line cut their chunk short). */
  private unsent = '';
  /** Epoch ms the node's first line arrived. */
  firstLineAt: number | undefined = undefined;
  readonly done: (() => boolean) | undefined;
  readonly keepAlive: KeepAlive | undefined;

  constructor(private readonly output: ChatOutput<Chunk>) {
    this.done = output.satisfied;
    this.keepAlive = output.keepAlive;
  }

  push(chunk: Uint8Array): string {
    this.consume(this.decoder.push(chunk));
    return this.take();
  }

  end(): string {
    const closing = this.finish().body;
    return this.take() + closing;
  }

  fail(error: RouterError): string {
    return this.take() + this.output.fail(error);
  }

  /** The node's reply ended: the output's closing bytes, or its whole body and headers when not streaming. */
  finish(): ReturnType<ChatOutput<Chunk>['end']> {
    // A node cut off mid-line leaves a partial line that is no error when its lines are no longer wanted.
    if (this.output.satisfied?.() !== true) this.consume(this.decoder.end());
    return this.output.end();
  }

  private consume(lines: readonly DecodedLine[]): void {
    for (const line of lines) {
      const parsed = this.output.parseLine(line);
      if (!parsed.ok) throw parsed.error;
      this.firstLineAt ??= Date.now();
      this.unsent += this.output.push(parsed.chunk, line.raw);
    }
  }

  private take(): string {
    const bytes = this.unsent;
    this.unsent = '';
    return bytes;
  }
}
