/**
 * A node as fast as Node can answer, for the router benchmark: Ollama's polling endpoints and
 * `/api/chat` — one canned JSON object, or with `stream: true` a fixed number of NDJSON lines written
 * one by one. The simulator (emulator/sim) is realistic but slower than the router it would measure.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const BENCH_MODEL = 'bench:1b';
export const STREAM_LINES = 16;

const created = '2026-01-01T00:00:00Z';
const tags = JSON.stringify({
  models: [
    {
      name: BENCH_MODEL,
      model: BENCH_MODEL,
      modified_at: created,
      size: 1_000_000_000,
      digest: 'a'.repeat(64),
      details: { format: 'gguf', family: 'llama', parameter_size: '1B', quantization_level: 'Q4_K_M' },
      capabilities: ['completion'],
    },
  ],
});
const ps = JSON.stringify({
  models: [
    {
      name: BENCH_MODEL,
      model: BENCH_MODEL,
      size: 1_200_000_000,
      size_vram: 1_200_000_000,
      expires_at: '2099-01-01T00:00:00Z',
      context_length: 4096,
    },
  ],
});
const show = JSON.stringify({
  capabilities: ['completion'],
  model_info: { 'general.architecture': 'llama', 'llama.context_length': 4096 },
  details: {},
});
const line = (content: string, done: boolean) =>
  `${JSON.stringify({
    model: BENCH_MODEL,
    created_at: created,
    message: { role: 'assistant', content },
    done,
    ...(done
      ? {
          done_reason: 'stop',
          total_duration: 1000,
          prompt_eval_count: 5,
          eval_count: STREAM_LINES,
          eval_duration: 900,
        }
      : {}),
  })}\n`;
const whole = line('the quick brown fox jumps over the lazy dog', true);

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
      const streaming = Buffer.concat(chunks).includes('"stream":true');
      if (!streaming) {
        response.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(whole),
        });
        response.end(whole);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      let sent = 0;
      const next = () => {
        sent += 1;
        if (sent === STREAM_LINES) {
          response.end(line('', true));
          return;
        }
        response.write(line(`token${sent} `, false));
        setImmediate(next);
      };
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
