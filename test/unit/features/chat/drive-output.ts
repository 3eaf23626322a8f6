/**
 * Drives a `ChatOutput` the way the relay does (lib/features/chat/chat-converter.ts): decode the node's NDJSON, parse
 * each line, push it, end; on a failure, the in-band report when streaming, the error when not. Also a
 * recording `ResponseSink`, for the relay's own tests (test/unit/services/http/relay-stream.test.ts).
 */

import { type RouterError, toRouterError } from '../../../../lib/core/errors';
import { createNdjsonDecoder, type DecodedLine } from '../../../../lib/core/stream/ndjson-decoder';
import type { ChatOutput } from '../../../../lib/features/chat/chat-output';
import {
  ClientGone,
  type FailedReply,
  type ResponseMeta,
  type ResponseSink,
} from '../../../../lib/services/http/response-sink';

export interface DrivenOutput {
  /** Streaming: every byte written. Non-streaming: the body. */
  readonly text: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The failure, when there was one. */
  readonly failure?: RouterError;
}

export function driveOutput<Chunk>(output: ChatOutput<Chunk>, bytes: Uint8Array): DrivenOutput {
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  let text = '';
  const handle = (lines: readonly DecodedLine[]) => {
    for (const line of lines) {
      const parsed = output.parseLine(line);
      if (!parsed.ok) throw parsed.error;
      text += output.push(parsed.chunk, line.raw);
    }
  };
  try {
    handle(decoder.push(bytes));
    handle(decoder.end());
    const end = output.end();
    if (!output.streaming) return { text: end.body, ...(end.headers !== undefined ? { headers: end.headers } : {}) };
    return { text: text + end.body };
  } catch (error) {
    const failure = toRouterError(error);
    return { text: output.streaming ? text + output.fail(failure) : '', failure };
  }
}

const textOf = (chunk: string | Uint8Array): string =>
  typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');

export interface RecordingSink extends ResponseSink {
  readonly writes: string[];
  readonly meta: ResponseMeta | undefined;
  /** The client leaves. */
  leave(): void;
}

/** A streaming sink that records each write. */
export function createRecordingSink(streaming = true): RecordingSink {
  const controller = new AbortController();
  const clientGone = new ClientGone();
  const writes: string[] = [];
  let meta: ResponseMeta | undefined;
  let ended = false;
  let failure: FailedReply | undefined;
  return {
    streaming,
    writes,
    get failure() {
      return failure;
    },
    noteFailure(next) {
      failure = next;
    },
    get meta() {
      return meta;
    },
    get started() {
      return meta !== undefined;
    },
    get ended() {
      return ended;
    },
    signal: controller.signal,
    clientGone,
    start(next) {
      meta = next;
    },
    async write(chunk) {
      meta ??= { statusCode: 200 };
      writes.push(textOf(chunk));
    },
    async end(chunk) {
      meta ??= { statusCode: 200 };
      if (chunk !== undefined) writes.push(textOf(chunk));
      ended = true;
    },
    leave: () => {
      controller.abort(new Error('client disconnected'));
      clientGone.fire();
    },
  };
}
