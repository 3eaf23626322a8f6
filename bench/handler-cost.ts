/**
 * `node dist/bench/main.js handler-cost`: what the ollama function costs on its own, without the
 * emulator or a client connection — its handler driven in-process with `/api/chat` events against the
 * fast node, on a table in another process, at concurrency 1 and 64. It prints CPU and wall time per
 * request, the figure to move when the router's throughput is the question (the rest of a request is
 * node:http and the emulator, which `npm run bench` measures on their own). Each figure is the least of
 * three runs, the one the machine's other work disturbed least. Not a budget: a probe.
 */
import { Writable } from 'node:stream';
import { installAwsLambdaGlobal } from '../emulator/lambda-runtime';
import { loadConfig } from '../lib/services/platform/config';
import { createDynamoClient } from '../lib/services/store/client';
import { ensureTable } from '../lib/services/store/ensure-table';
import { BENCH_MODEL } from './fast-node';

type StreamingHandler = (event: unknown, stream: Writable, context: unknown) => Promise<void>;

/** A response stream that only counts: the handler's cost without a socket behind it. */
class CountingStream extends Writable {
  bytes = 0;
  setContentType(): void {}
  setPrelude(): void {}
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.bytes += chunk.length;
    callback();
  }
}

const body = JSON.stringify({ model: BENCH_MODEL, messages: [{ role: 'user', content: 'benchmark' }], stream: false });
let sequence = 0;

function chatEvent() {
  sequence += 1;
  const headers = { 'content-type': 'application/json', host: '127.0.0.1' };
  return {
    resource: '/api/chat',
    path: '/api/chat',
    httpMethod: 'POST',
    headers,
    multiValueHeaders: { 'content-type': ['application/json'], host: ['127.0.0.1'] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: { requestId: `probe-${sequence}`, identity: { sourceIp: '127.0.0.1' }, stage: 'local' },
    body,
    isBase64Encoded: false,
  };
}

const context = { awsRequestId: 'probe', getRemainingTimeInMillis: () => 30_000 };

interface Cost {
  readonly cpuMicros: number;
  readonly wallMicros: number;
}

async function drive(handler: StreamingHandler, concurrency: number, total: number): Promise<Cost> {
  const one = async () => {
    const stream = new CountingStream();
    await handler(chatEvent(), stream, context);
    if (stream.bytes === 0) throw new Error('the handler wrote nothing');
  };
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await one();
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    cpuMicros: (used.user + used.system) / total,
    wallMicros: Number(process.hrtime.bigint() - started) / 1000 / total,
  };
}

/** The least disturbed of `rounds` runs: other processes on a shared machine only ever add time. */
async function leastOf(rounds: number, run: () => Promise<Cost>): Promise<Cost> {
  let best: Cost | undefined;
  for (let round = 0; round < rounds; round += 1) {
    const cost = await run();
    if (best === undefined || cost.cpuMicros < best.cpuMicros) best = cost;
  }
  return best as Cost;
}

/** Runs in a process whose FLEET_* environment names the node and the table (see main.ts). */
export async function handlerCost(root: string): Promise<void> {
  const config = loadConfig();
  await ensureTable(createDynamoClient({ dynamodbEndpoint: config.dynamodbEndpoint }), config.table);
  installAwsLambdaGlobal();
  // Polls register the listed fast node and keep it online, as the emulator's scheduler would: a node
  // polled once is offline 30 s later, and a slow machine's runs take longer than that.
  const poller = require(`${root}/dist/functions/poller/index.js`) as { handler: (event: unknown) => Promise<void> };
  const poll = () => poller.handler({ source: 'fleet.emulator' });
  await poll();
  const polling = setInterval(() => void poll().catch(() => undefined), 5000);
  try {
    const { handler } = require(`${root}/dist/functions/ollama/index.js`) as { handler: StreamingHandler };
    await drive(handler, 16, 2000);
    for (const concurrency of [1, 64]) {
      const cost = await leastOf(3, () => drive(handler, concurrency, 10_000));
      console.log(
        `c=${concurrency}: ${cost.cpuMicros.toFixed(0)} µs CPU, ${cost.wallMicros.toFixed(0)} µs wall per request (least of 3 runs)`,
      );
    }
  } finally {
    clearInterval(polling);
  }
}
