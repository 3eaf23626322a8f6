/**
 * A node's `/api/pull` stream for the client (spec §4.4 `POST /api/pull`; ARCHITECTURE.md §9.4;
 * protocols §2.10, §8.3), as a converter the one relay drives (lib/services/http/relay-stream).
 * Streaming: every progress line goes out as it comes, byte for byte, awaiting the client's
 * back-pressure; the node's `{"error": ...}` line is passed through and ends the reply; a malformed line,
 * a connection that breaks, or a stream that ends without `success` becomes an in-band `{"error": ...}`
 * line, because ollama-js throws when a pull stream ends without `success`. `stream: false`: the stream
 * is read to its end and answered `{"status": "success"}`, or the failure as an error status. Either way
 * `onSuccess` runs once the node said `success` and before the client hears it — the success line is
 * held back until then — so a client that lists models right after the pull sees the new one.
 */
import { type RouterError, UpstreamError } from '../../core/errors';
import { technicalCause } from '../../core/fleet/node-failure';
import { inBandError } from '../../core/stream/in-band-error';
import { createNdjsonDecoder, type DecodedLine } from '../../core/stream/ndjson-decoder';
import type { StreamConverter } from '../../core/stream/stream-converter';
import { relayStream } from '../../services/http/relay-stream';
import { NDJSON_TYPE, sendJson } from '../../services/http/reply';
import type { ResponseSink } from '../../services/http/response-sink';
import type { NodeReply } from '../../services/node-client/node-stream';
import { createPullProgress } from './pull-progress';

const MAX_LINE_BYTES = 1 << 20;

export interface PullRelayInput {
  readonly reply: NodeReply;
  readonly response: ResponseSink;
  readonly nodeId: string;
  readonly streaming: boolean;
  /** `X-Fleet-Node` and friends, sent with the status line. */
  readonly headers: Readonly<Record<string, string>>;
  /** Runs once the node said `success`, before the client hears it; given the layers' total bytes. */
  readonly onSuccess: (layerBytes: number) => Promise<void>;
  /**
   * Gives the pull's lock back once the node is done, before the client hears the end, so a client that
   * pulls the model again at once, through any instance, is not refused by the pull it just watched end.
   */
  readonly releaseLock: () => Promise<void>;
}

/** How the pull ended, for the trace: `failed` is a failure before the first byte, `incomplete` one after. */
export type PullOutcome =
  | { readonly status: 'completed' | 'client_disconnected' }
  | { readonly status: 'failed' | 'incomplete'; readonly error: string };

/** The pull's lines as the client gets them; what the node said about the pull, once it said it. */
export class PullConverter implements StreamConverter {
  private readonly decoder = createNdjsonDecoder({ maxLineBytes: MAX_LINE_BYTES });
  private readonly progress = createPullProgress();
  private unsent = '';
  /** The success line and what follows it: the client's only after `onSuccess`. */
  private held = '';
  succeeded = false;
  /** The node's own error line's message, once it sent one (it is passed through and ends the reply). */
  nodeError: string | undefined = undefined;
  readonly done = (): boolean => this.nodeError !== undefined;

  constructor(private readonly nodeId: string) {}

  push(chunk: Uint8Array): string {
    this.consume(this.decoder.push(chunk));
    return this.take();
  }

  end(): string {
    if (this.nodeError === undefined) this.consume(this.decoder.end());
    if (this.nodeError !== undefined) return this.take();
    if (!this.succeeded) throw new UpstreamError(`node '${this.nodeId}' ended the pull stream before success`);
    return this.take() + this.held;
  }

  fail(error: RouterError): string {
    return this.take() + inBandError('ollama', error);
  }

  /** The layers' total bytes, as the progress lines counted them. */
  layerBytes(): number {
    return this.progress.layerBytes();
  }

  private consume(lines: readonly DecodedLine[]): void {
    for (const line of lines) {
      if (this.nodeError !== undefined) return;
      const seen = this.progress.observe(line);
      if (seen.kind === 'malformed') {
        throw new UpstreamError(`node '${this.nodeId}' sent an unreadable pull line: ${seen.message}`);
      }
      if (seen.kind === 'error') {
        this.nodeError = seen.message;
        this.unsent += `${this.held}${line.raw}\n`;
        this.held = '';
        return;
      }
      if (seen.kind === 'success') this.succeeded = true;
      if (this.succeeded) this.held += `${line.raw}\n`;
      else this.unsent += `${line.raw}\n`;
    }
  }

  private take(): string {
    const bytes = this.unsent;
    this.unsent = '';
    return bytes;
  }
}

function brokeOff(nodeId: string, error: unknown): RouterError {
  const detail = `the pull on node '${nodeId}' broke off: ${technicalCause(error)}`;
  return new UpstreamError(`the pull on node '${nodeId}' broke off`, undefined, { detail });
}

async function relayStreaming(input: PullRelayInput, converter: PullConverter): Promise<PullOutcome> {
  const { response } = input;
  response.start({ statusCode: 200, headers: { ...input.headers, 'content-type': NDJSON_TYPE } });
  const relayed = await relayStream(response, input.reply, converter, {
    brokeOff: (error) => brokeOff(input.nodeId, error),
    beforeEnd: async () => {
      if (converter.succeeded && !converter.done()) await input.onSuccess(converter.layerBytes());
      await input.releaseLock();
    },
  });
  switch (relayed.status) {
    case 'client_disconnected':
      return { status: 'client_disconnected' };
    case 'incomplete':
      return { status: 'incomplete', error: relayed.failure?.message ?? 'the pull failed' };
    case 'completed':
      return converter.nodeError === undefined
        ? { status: 'completed' }
        : { status: 'failed', error: converter.nodeError };
  }
}

/** `stream: false`: one JSON answer at the end; a failure is thrown, so the wrapper renders it. */
async function relayBuffered(input: PullRelayInput, converter: PullConverter): Promise<PullOutcome> {
  const gone = input.response.clientGone;
  try {
    for await (const chunk of input.reply.body) {
      converter.push(chunk);
      if (gone.aborted || converter.done()) break;
    }
  } catch (error) {
    if (gone.aborted) return { status: 'client_disconnected' };
    throw brokeOff(input.nodeId, error);
  }
  if (gone.aborted) return { status: 'client_disconnected' };
  if (converter.nodeError !== undefined) {
    throw new UpstreamError(converter.nodeError, undefined, { code: 'pull_failed' });
  }
  converter.end();
  await input.onSuccess(converter.layerBytes());
  await input.releaseLock();
  await sendJson(input.response, { status: 'success' }, 200, input.headers);
  return { status: 'completed' };
}

export function relayPull(input: PullRelayInput): Promise<PullOutcome> {
  const converter = new PullConverter(input.nodeId);
  return input.streaming ? relayStreaming(input, converter) : relayBuffered(input, converter);
}
