/**
 * A node as fast as Node can answer, for the router benchmark: Ollama's polling endpoints, `/api/chat` and
 * Ollama's own OpenAI-style `/v1/chat/completions` — one canned JSON object, or with `stream: true` a fixed
 * number of NDJSON lines (SSE events on `/v1`) written one by one. The simulator (emulator/sim) is realistic
 * but slower than the router it would measure.
 *
 * Two models, two ways of streaming. `BENCH_MODEL` streams as fast as the node can write (`STREAM_LINES`
 * lines, one per turn of the event loop). `SLOW_MODEL` is the slow-stream mode, a model generating tokens:
 * `SLOW_CHUNKS` content chunks `SLOW_INTERVAL_MS` apart, then the final line with the last one — each chunk
 * on a deadline counted from the stream's start, so a late timer does not push every later chunk back. The
 * model in the body picks the mode, so one node, one router and one proxy serve both, in either style.
 * Each content chunk says `token<n> ` (n from 1), which is how ./chunk-timeline finds it at the client.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BENCH_MODEL = 'bench:1b';
export const STREAM_LINES = 16;
export const SLOW_MODEL = 'bench-slow:1b';
export const SLOW_CHUNKS = 100;
export const SLOW_INTERVAL_MS = 50;

const created = '2026-01-01T00:00:00Z';
const modelEntry = (name: string) => ({
  name,
  model: name,
  modified_at: created,
  size: 1_000_000_000,
  digest: 'a'.repeat(64),
  details: { format: 'gguf', family: 'llama', parameter_size: '1B', quantization_level: 'Q4_K_M' },
  capabilities: ['completion'],
});
const tags = JSON.stringify({ models: [modelEntry(BENCH_MODEL), modelEntry(SLOW_MODEL)] });
const loadedEntry = (name: string) => ({
  name,
  model: name,
  size: 1_200_000_000,
  size_vram: 1_200_000_000,
  expires_at: '2099-01-01T00:00:00Z',
  context_length: 4096,
});
const ps = JSON.stringify({ models: [loadedEntry(BENCH_MODEL), loadedEntry(SLOW_MODEL)] });
const show = JSON.stringify({
  capabilities: ['completion'],
  model_info: { 'general.architecture': 'llama', 'llama.context_length': 4096 },
  details: {},
});

/** What one style writes for one model: its content type, a content chunk, the final chunk, a whole answer. */
interface Style {
  readonly streamType: string;
  chunk(content: string): string;
  readonly last: string;
  readonly whole: string;
}

function ollamaStyle(model: string, count: number): Style {
  const line = (content: string, done: boolean) =>
    `${JSON.stringify({
      model,
      created_at: created,
      message: { role: 'assistant', content },
      done,
      ...(done
        ? { done_reason: 'stop', total_duration: 1000, prompt_eval_count: 5, eval_count: count, eval_duration: 900 }
        : {}),
    })}\n`;
  return {
    streamType: 'application/x-ndjson',
    chunk: (content) => line(content, false),
    last: line('', true),
    whole: line('the quick brown fox jumps over the lazy dog', true),
  };
}

/** As Ollama's OpenAI compatibility layer writes them: every delta with its role, then `[DONE]`. */
function openAIStyle(model: string, count: number): Style {
  const base = { id: 'chatcmpl-bench', created: 1_767_225_600, model, system_fingerprint: 'fp_ollama' };
  const event = (content: string, finish: string | null) =>
    `data: ${JSON.stringify({
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: finish }],
    })}\n\n`;
  return {
    streamType: 'text/event-stream',
    chunk: (content) => event(content, null),
    last: `${event('', 'stop')}data: [DONE]\n\n`,
    whole: JSON.stringify({
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'the quick brown fox jumps over the lazy dog' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: count, total_tokens: 5 + count },
    }),
  };
}

const styles = {
  ollama: { fast: ollamaStyle(BENCH_MODEL, STREAM_LINES), slow: ollamaStyle(SLOW_MODEL, SLOW_CHUNKS) },
  openai: { fast: openAIStyle(BENCH_MODEL, STREAM_LINES), slow: openAIStyle(SLOW_MODEL, SLOW_CHUNKS) },
};
/** Content chunks are canned too: the node's own cost stays out of the figures. */
const contents = Array.from({ length: Math.max(STREAM_LINES, SLOW_CHUNKS) + 1 }, (_, index) => `token${index} `);

/** As fast as the loop turns: `STREAM_LINES` lines, the last one final. */
function streamFast(response: ServerResponse, style: Style): void {
  let sent = 0;
  const next = () => {
    sent += 1;
    if (sent === STREAM_LINES) {
      response.end(style.last);
      return;
    }
    response.write(style.chunk(contents[sent] ?? ''));
    setImmediate(next);
  };
  next();
}

/** `SLOW_CHUNKS` chunks, the n-th due `n × SLOW_INTERVAL_MS` after the first; stops if the client leaves. */
function streamSlow(response: ServerResponse, style: Style): void {
  const started = performance.now();
  let sent = 0;
  const next = () => {
    if (response.destroyed) return;
    sent += 1;
    response.write(style.chunk(contents[sent] ?? ''));
    if (sent === SLOW_CHUNKS) {
      response.end(style.last);
      return;
    }
    setTimeout(next, Math.max(0, started + sent * SLOW_INTERVAL_MS - performance.now()));
  };
  next();
}

function answerChat(response: ServerResponse, url: string, body: Buffer): void {
  const family = url.startsWith('/v1/') ? styles.openai : styles.ollama;
  const slow = body.includes(SLOW_MODEL);
  const style = slow ? family.slow : family.fast;
  if (!body.includes('"stream":true')) {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(style.whole),
    });
    response.end(style.whole);
    return;
  }
  response.writeHead(200, { 'content-type': style.streamType });
  if (slow) streamSlow(response, style);
  else streamFast(response, style);
}

export async function startFastNode(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (request.method === 'GET') {
      const body =
        url === '/api/tags'
          ? tags
          : url === '/api/ps'
            ? ps
            : url === '/api/version'
              ? '{"version":"0.12.6"}'
              : 'Ollama is running';
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (url === '/api/show') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(show) });
        response.end(show);
        return;
      }
      answerChat(response, url, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
