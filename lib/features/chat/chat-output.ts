/**
 * How a routed chat reply is written in the client's family. The relay (./serve-chat, ./chat-converter)
 * reads the node's NDJSON stream and hands each parsed line here; an output turns lines into the bytes it writes as they
 * come (streaming) or into one body at the end, and knows how to report a failure after the first byte.
 */
import type { RouterError } from '../../core/errors';
import type { DecodedLine } from '../../core/stream/ndjson-decoder';
import type { KeepAlive } from '../../core/stream/stream-converter';

export interface ParsedChunk<Chunk> {
  readonly ok: true;
  readonly chunk: Chunk;
}

export interface ChatOutcome {
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly finishReason?: string;
  /**
   * The node's own time from the request to its first token (loading, the prompt, one token), from the
   * durations on its last line: how a one-object answer, which arrives whole, still tells its TTFT.
   */
  readonly nodeFirstTokenMs?: number;
  /** How long the node spent loading the model, ms (Ollama `load_duration` on its last line): a cold load's mark. */
  readonly loadMs?: number;
  /** Prompt tokens the node served from its prefix cache, where it measured them (`prompt_cache_count`). */
  readonly cachedTokens?: number;
  /**
   * The node's time evaluating the prompt and generating the answer, ms (Ollama `prompt_eval_duration`,
   * `eval_duration`): with `promptTokens` and `completionTokens`, its observed prefill and decode rates.
   */
  readonly promptEvalMs?: number;
  readonly evalMs?: number;
}

export interface ChatOutput<Chunk> {
  readonly streaming: boolean;
  /** The content type of a streaming reply. */
  readonly contentType: string;
  parseLine(line: DecodedLine): ParsedChunk<Chunk> | { readonly ok: false; readonly error: RouterError };
  /** Streaming: the bytes to write for this node line now ('' for nothing). Non-streaming: collects it. */
  push(chunk: Chunk, raw: string): string;
  /**
   * The node's stream ended: streaming, the closing bytes; non-streaming, the whole body and its extra
   * headers. Throws `UpstreamError` when the node never sent its last line.
   */
  end(): { readonly body: string; readonly headers?: Readonly<Record<string, string>> };
  /** The bytes that report a failure in band, after the first byte. */
  fail(error: RouterError): string;
  /** Tokens and finish reason, once the last line was seen. */
  outcome(): ChatOutcome;
  /**
   * True once the reply is whole before the node's stream ended (the client's visible budget is spent,
   * `../protocols/visible-budget`): the relay stops reading and cancels the node, and reads the node line
   * by line even for a one-object answer. Absent: never.
   */
  readonly satisfied?: (() => boolean) | undefined;
  /** What a streamed reply sends while the node is quiet (Anthropic's `ping`); written by the relay. */
  readonly keepAlive?: KeepAlive | undefined;
}
