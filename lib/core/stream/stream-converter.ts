/**
 * What the relay (lib/services/http/relay-stream) drives: a small synchronous state machine that turns
 * the node's reply, chunk by chunk, into the client's bytes (STYLE "Stream converters"). Every streamed
 * reply — chat in each family, pull progress — is one of these; the relay owns the writing, the
 * back-pressure, the keep-alive timer and cancelling the node. Pure types.
 */
import type { RouterError } from '../errors';

export interface StreamConverter {
  /** The client's bytes for one chunk of the node's reply ('' for none); throws on what it cannot read. */
  push(chunk: Uint8Array): string;
  /** The node's reply ended: the closing bytes; throws when the reply ended before it was whole. */
  end(): string;
  /** The in-band report of a failure after the first byte, with whatever `push` read but had not returned. */
  fail(error: RouterError): string;
  /** True once the reply is whole before the node's stream ended: the relay stops reading and cancels. */
  readonly done?: (() => boolean) | undefined;
  /** Bytes the client is sent when the stream stays quiet (Anthropic's `ping`); none when absent. */
  readonly keepAlive?: KeepAlive | undefined;
}

export interface KeepAlive {
  /** How long the stream may stay quiet before a keep-alive goes out, ms. */
  readonly intervalMs: number;
  /** The keep-alive's bytes now; '' once the stream has nothing more to say. */
  bytes(): string;
}
