/**
 * The one relay of a streamed reply (STYLE "Decode, convert, encode, relay"): drives any
 * `StreamConverter` over the node's body into the client's sink — one write per node chunk, awaiting the
 * client's back-pressure, no promise per chunk beyond the body's iterator — and cancels the node's body
 * exactly once, however the relay ends (the client left, the reply was whole early, it failed). A
 * failure after the first byte goes out in band (the converter's `fail`) and the stream is ended, never
 * appended to. The relay is the sink's only writer: when the converter has a keep-alive (Anthropic's
 * `ping`), the relay notices the quiet and writes the converter's keep-alive bytes itself, between its
 * own writes, never before the caller fixed the status and headers and never after the end. The caller
 * has called `sink.start` before.
 */
import { type RouterError, toRouterError } from '../../core/errors';
import { createIdleKeepAlive, type IdleKeepAlive } from '../../core/stream/idle-keep-alive';
import type { KeepAlive, StreamConverter } from '../../core/stream/stream-converter';
import type { NodeReply } from '../node-client/node-reply';
import type { ResponseSink } from './response-sink';

/** How a relayed stream ended: `incomplete` is a failure reported in band, after the first byte. */
export type RelayStatus = 'completed' | 'incomplete' | 'client_disconnected';

export interface RelayOutcome {
  readonly status: RelayStatus;
  /** What failed, when something did (the client leaving included, when the node's read failed then). */
  readonly failure: RouterError | undefined;
}

export interface RelayOptions {
  /** The node's body broke off (connection reset, node crash) while the client was there: the failure. */
  brokeOff(error: unknown): RouterError;
  /** Runs once the node's stream ended whole, before its closing bytes go out (pull records its model here). */
  beforeEnd?: (() => Promise<void> | undefined) | undefined;
}

const COMPLETED: RelayOutcome = { status: 'completed', failure: undefined };
const GONE: RelayOutcome = { status: 'client_disconnected', failure: undefined };

export async function relayStream(
  sink: ResponseSink,
  reply: Pick<NodeReply, 'body' | 'cancel'>,
  converter: StreamConverter,
  options: RelayOptions,
): Promise<RelayOutcome> {
  const gone = sink.clientGone;
  const idle =
    converter.keepAlive !== undefined && sink.streaming ? new KeepAliveWriter(sink, converter.keepAlive) : undefined;
  try {
    const body = reply.body[Symbol.asyncIterator]();
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await body.next();
      } catch (error) {
        throw gone.aborted ? error : options.brokeOff(error);
      }
      if (next.done === true || gone.aborted) break;
      const bytes = converter.push(next.value);
      if (bytes !== '') {
        if (idle !== undefined) idle.writing = true;
        await sink.write(bytes);
        idle?.wrote();
      }
      if (gone.aborted || converter.done?.() === true) break;
    }
    if (gone.aborted) return GONE;
    const closing = converter.end();
    await options.beforeEnd?.();
    idle?.stop();
    await (closing === '' ? sink.end() : sink.end(closing));
    return COMPLETED;
  } catch (error) {
    idle?.stop();
    const failure = toRouterError(error);
    if (gone.aborted) return { status: 'client_disconnected', failure };
    await sink.write(converter.fail(failure));
    await sink.end();
    return { status: 'incomplete', failure };
  } finally {
    idle?.stop();
    reply.cancel();
  }
}

/**
 * The keep-alive timer beside the relay's writes: it writes only while no write of the relay's is under
 * way, and a write of the relay's counts as activity. No promise of its own per chunk.
 */
class KeepAliveWriter {
  /** A write is under way (the relay's, waiting on back-pressure, or a keep-alive's). */
  writing = false;
  private readonly timer: IdleKeepAlive;

  constructor(
    private readonly sink: ResponseSink,
    private readonly keepAlive: KeepAlive,
  ) {
    this.timer = createIdleKeepAlive({ intervalMs: keepAlive.intervalMs, onIdle: () => this.onIdle() });
  }

  /** The relay's write went out. */
  wrote(): void {
    this.writing = false;
    this.timer.touch();
  }

  stop(): void {
    this.timer.stop();
  }

  private onIdle(): void {
    // A write still waiting on back-pressure is no quiet stream; a gone client or an ended reply is none.
    if (this.writing) return;
    const bytes = this.sink.clientGone.aborted || this.sink.ended ? '' : this.keepAlive.bytes();
    if (bytes === '') {
      this.stop();
      return;
    }
    this.writing = true;
    this.sink.write(bytes).then(
      () => {
        this.writing = false;
      },
      () => this.stop(),
    );
  }
}
