/**
 * Relays a node's `/api/pull` stream to the client (spec §4.4 `POST /api/pull`; contract §4; protocols
 * §2.10, §8.3). Streaming: every progress line is written as it comes, byte for byte, awaiting the
 * client's back-pressure; the node's `{"error": ...}` line is passed through; a malformed line, a
 * connection that breaks, or a stream that ends without `success` becomes an in-band `{"error": ...}`
 * line, because ollama-js throws when a pull stream ends without `success`. `stream: false`: the stream
 * is read to its end and answered `{"status": "success"}`, or the failure as an error status. Either
 * way `onSuccess` runs when the node says `success` and before the client hears it, so a client that
 * lists models right after the pull sees the new one.
 */
import { type RouterError, UpstreamError } from '../../core/errors';
import { technicalCause } from '../../core/fleet/node-failure';
import { inBandError } from '../../core/stream/in-band-error';
import { createNdjsonDecoder, type DecodedLine } from '../../core/stream/ndjson-decoder';
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
}

/** How the pull ended, for the trace: `failed` is a failure before the first byte, `incomplete` one after. */
export type PullOutcome =
  | { readonly status: 'completed' | 'client_disconnected' }
  | { readonly status: 'failed' | 'incomplete'; readonly error: string };

type PullEnd =
  | { readonly kind: 'success' }
  | { readonly kind: 'gone' }
  /** The node's own error line: already relayed when streaming. */
  | { readonly kind: 'node-error'; readonly message: string }
  | { readonly kind: 'broken'; readonly error: RouterError };

type Forward = (raw: string) => Promise<void>;

/** Reads the node's stream to its end (or the first error), forwarding each line it can pass on. */
async function consumePull(input: PullRelayInput, forward: Forward): Promise<PullEnd> {
  const { reply, nodeId } = input;
  const gone = input.response.clientGone;
  const decoder = createNdjsonDecoder({ maxLineBytes: MAX_LINE_BYTES });
  const progress = createPullProgress();
  let succeeded = false;
  const handle = async (lines: readonly DecodedLine[]): Promise<PullEnd | undefined> => {
    for (const line of lines) {
      const seen = progress.observe(line);
      if (seen.kind === 'malformed') {
        return {
          kind: 'broken',
          error: new UpstreamError(`node '${nodeId}' sent an unreadable pull line: ${seen.message}`),
        };
      }
      if (seen.kind === 'error') {
        await forward(line.raw);
        return { kind: 'node-error', message: seen.message };
      }
      if (seen.kind === 'success') {
        await input.onSuccess(progress.layerBytes());
        succeeded = true;
      }
      await forward(line.raw);
      if (gone.aborted) return { kind: 'gone' };
    }
    return undefined;
  };
  try {
    for await (const chunk of reply.body) {
      const end = await handle(decoder.push(chunk));
      if (end !== undefined) return end;
    }
  } catch (error) {
    if (gone.aborted) return { kind: 'gone' };
    const detail = `the pull on node '${nodeId}' broke off: ${technicalCause(error)}`;
    return {
      kind: 'broken',
      error: new UpstreamError(`the pull on node '${nodeId}' broke off`, undefined, { detail }),
    };
  }
  if (gone.aborted) return { kind: 'gone' };
  const end = await handle(decoder.end());
  if (end !== undefined) return end;
  if (succeeded) return { kind: 'success' };
  return { kind: 'broken', error: new UpstreamError(`node '${nodeId}' ended the pull stream before success`) };
}

async function relayStreaming(input: PullRelayInput): Promise<PullOutcome> {
  const { response } = input;
  response.start({ statusCode: 200, headers: { ...input.headers, 'content-type': NDJSON_TYPE } });
  const end = await consumePull(input, (raw) => response.write(`${raw}\n`));
  switch (end.kind) {
    case 'success':
      await response.end();
      return { status: 'completed' };
    case 'gone':
      return { status: 'client_disconnected' };
    case 'node-error':
      await response.end();
      return { status: 'failed', error: end.message };
    case 'broken':
      await response.end(inBandError('ollama', end.error));
      return { status: 'incomplete', error: end.error.message };
  }
}

/** `stream: false`: one JSON answer at the end; a failure is thrown, so the wrapper renders it. */
async function relayBuffered(input: PullRelayInput): Promise<PullOutcome> {
  const end = await consumePull(input, async () => undefined);
  switch (end.kind) {
    case 'success':
      await sendJson(input.response, { status: 'success' }, 200, input.headers);
      return { status: 'completed' };
    case 'gone':
      return { status: 'client_disconnected' };
    case 'node-error':
      throw new UpstreamError(end.message, undefined, { code: 'pull_failed' });
    case 'broken':
      throw end.error;
  }
}

export function relayPull(input: PullRelayInput): Promise<PullOutcome> {
  return input.streaming ? relayStreaming(input) : relayBuffered(input);
}
