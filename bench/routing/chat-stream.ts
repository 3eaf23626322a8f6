/**
 * One streaming chat request of the routing bench, timed as a user sees it (issue 41 item 3): OpenAI style
 * (`POST /v1/chat/completions`, `stream: true` with usage) over a keep-alive undici pool, the events read
 * with eventsource-parser. The first token is the first chunk with non-empty content. A 429 or 503 is a
 * refusal (the router's admission said no); any other non-2xx answer, an error event, a transport error or
 * a stream that ends without `[DONE]` is a failure.
 */
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import type { ChatMessage } from './prompt';

export type ChatStatus = 'ok' | 'refused' | 'failed';

export interface ChatOutcome {
  readonly status: ChatStatus;
  readonly httpStatus: number | undefined;
  /** `X-Fleet-Node`: the node that served it. */
  readonly node: string | undefined;
  /** performance.now() of the first content token; undefined when none came. */
  readonly firstTokenAt: number | undefined;
  /** performance.now() when the stream ended (or failed). */
  readonly endAt: number;
  /** The answer's text exactly as streamed. */
  readonly answer: string;
  /** `usage.completion_tokens`, else the content chunks counted. */
  readonly outputTokens: number;
  readonly promptTokens: number | undefined;
  /** `usage.prompt_tokens_details.cached_tokens`, when the router reports it. */
  readonly cachedTokens: number | undefined;
  readonly error: string | undefined;
}

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly maxTokens: number;
  /** Headers besides the content type: the sharing scenario's `X-Service-Tags` and `X-Fleet-Priority`. */
  readonly headers?: Readonly<Record<string, string>>;
}

interface Usage {
  completion_tokens?: number;
  prompt_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

interface Chunk {
  choices?: { delta?: { content?: string | null } }[];
  usage?: Usage | null;
  error?: unknown;
}

class StreamReader {
  answer = '';
  chunks = 0;
  firstTokenAt: number | undefined;
  usage: Usage | undefined;
  done = false;
  error: string | undefined;

  read(data: string): void {
    if (data === '[DONE]') {
      this.done = true;
      return;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      this.error = `unreadable event: ${data.slice(0, 200)}`;
      return;
    }
    if (chunk.error !== undefined) this.error = `error event: ${JSON.stringify(chunk.error).slice(0, 200)}`;
    const content = chunk.choices?.[0]?.delta?.content;
    if (content !== undefined && content !== null && content !== '') {
      this.firstTokenAt ??= performance.now();
      this.answer += content;
      this.chunks += 1;
    }
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage;
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Sends `chat` to the router at `baseUrl` and reads its stream to the end. */
export async function streamChat(dispatcher: Dispatcher, baseUrl: string, chat: ChatRequest): Promise<ChatOutcome> {
  const reader = new StreamReader();
  let httpStatus: number | undefined;
  let node: string | undefined;
  const outcome = (status: ChatStatus, error: string | undefined): ChatOutcome => ({
    status,
    httpStatus,
    node,
    firstTokenAt: reader.firstTokenAt,
    endAt: performance.now(),
    answer: reader.answer,
    outputTokens: reader.usage?.completion_tokens ?? reader.chunks,
    promptTokens: reader.usage?.prompt_tokens,
    cachedTokens: reader.usage?.prompt_tokens_details?.cached_tokens,
    error,
  });
  try {
    const response = await request(`${baseUrl}/v1/chat/completions`, {
      dispatcher,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...chat.headers },
      body: JSON.stringify({
        model: chat.model,
        messages: chat.messages,
        max_tokens: chat.maxTokens,
        stream: true,
        stream_options: { include_usage: true },
      }),
      // The router may queue a request for as long as its admission allows: no client-side timeout.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    httpStatus = response.statusCode;
    node = headerText(response.headers['x-fleet-node']);
    if (httpStatus !== 200) {
      const text = await response.body.text();
      const refused = httpStatus === 429 || httpStatus === 503;
      return outcome(refused ? 'refused' : 'failed', `HTTP ${httpStatus}: ${text.slice(0, 200)}`);
    }
    const parser = createParser({ onEvent: (event) => reader.read(event.data) });
    const decoder = new TextDecoder();
    for await (const bytes of response.body) parser.feed(decoder.decode(bytes as Buffer, { stream: true }));
    parser.feed(decoder.decode());
    if (reader.error !== undefined) return outcome('failed', reader.error);
    if (!reader.done) return outcome('failed', 'the stream ended without [DONE]');
    return outcome('ok', undefined);
  } catch (error) {
    return outcome('failed', error instanceof Error ? error.message : String(error));
  }
}
