/**
 * `npx serverless offline` (README "Running under serverless-offline"): started as a newcomer starts it on a
 * fresh clone — no dist/, no table, no AWS credentials, no FLEET_DYNAMODB_ENDPOINT — it builds, starts its
 * own DynamoDB stand-in (serverless/offline-setup.js) and serves every function of serverless.yml, buffered.
 * One node agent joins by heartbeat (the fleet function); one listed Ollama (FLEET_NODES, from the shell)
 * is polled by the poller, invoked through the Lambda Invoke API. Each function answers a route of its own
 * with the right body: streams come whole, images as bytes, uploads as multipart. Stopping the command ends
 * the stand-in too.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CATALOG,
  DEFAULT_IMAGE_MODELS,
  DEFAULT_TRANSCRIPTION_MODELS,
  readPngSize,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import { wavFile } from '../helpers/upload-form';
import { eventually } from './router-process';
import { type OfflineProcess, startOffline } from './serverless-offline-process';

let offline: OfflineProcess;
let agent: SimAgent;
let listed: SimNode;

const CHAT_MODEL = 'llama3.2:3b';
const LISTED_MODEL = 'qwen3:8b';

function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(`${offline.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

interface FleetStatus {
  readonly nodes: readonly { readonly node_id: string; readonly status: string }[];
}

async function nodeStatus(nodeId: string): Promise<string | undefined> {
  const response = await fetch(`${offline.url}/fleet/status`);
  expect(response.status).toBe(200);
  const status = (await response.json()) as FleetStatus;
  return status.nodes.find((node) => node.node_id === nodeId)?.status;
}

beforeAll(async () => {
  listed = await startSimNode({ id: 'listed', models: CATALOG.filter((entry) => entry.name === LISTED_MODEL) });
  offline = await startOffline({
    env: {
      FLEET_DATA_DIR: ':memory:',
      FLEET_NODES: `listed=${listed.url}`,
      FLEET_IMAGE_GENERATION: 'true',
      FLEET_TRANSCRIPTION: 'true',
    },
  });
  agent = await startSimAgent({
    nodeId: 'agent',
    routerUrl: offline.url,
    intervalMs: 60_000,
    ollamaOptions: {
      id: 'agent',
      models: CATALOG.filter((entry) => entry.name === CHAT_MODEL),
      loaded: [CHAT_MODEL],
      ttftMs: 1,
      tokensPerSecond: Number.POSITIVE_INFINITY,
    },
    image: DEFAULT_IMAGE_MODELS,
    imageStepMs: 1,
    transcription: DEFAULT_TRANSCRIPTION_MODELS,
    transcriptionJobMs: 20,
  });
}, 150_000);

afterAll(async () => {
  await agent?.stop();
  await listed?.close();
  await offline?.stop();
});

describe('serverless offline on a fresh clone', () => {
  it('built the bundles and started its own DynamoDB stand-in', () => {
    expect(offline.output()).toMatch(/offline-setup: bundles built in \d+ ms/);
    expect(offline.tableEndpoint()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('fleet: takes the agent’s heartbeat and lists the node online', async () => {
    await agent.sendHeartbeat();

    await eventually(async () => expect(await nodeStatus('agent')).toBe('online'));
  });

  it('ollama: streams a chat as NDJSON, whole, ending with done', async () => {
    const response = await eventually(async () => {
      const attempt = await postJson('/api/chat', {
        model: CHAT_MODEL,
        messages: [{ role: 'user', content: 'Say hello' }],
        stream: true,
      });
      expect(attempt.status).toBe(200);
      return attempt;
    });

    const lines = (await response.text()).trimEnd().split('\n');
    const chunks = lines.map((line) => JSON.parse(line) as { message?: { content: string }; done: boolean });
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(response.headers.get('x-fleet-node')).toBe('agent');
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.slice(0, -1).every((chunk) => !chunk.done)).toBe(true);
    expect(chunks.at(-1)?.done).toBe(true);
    expect(chunks.map((chunk) => chunk.message?.content ?? '').join('')).not.toBe('');
  });

  it('openai: streams a chat completion as SSE, whole, ending with [DONE]', async () => {
    const response = await postJson('/v1/chat/completions', {
      model: CHAT_MODEL,
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: true,
    });

    const events = (await response.text()).split('\n\n').filter((event) => event !== '');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.replace(/^data: /, '')) as { object: string });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
  });

  it('messages: answers an Anthropic message', async () => {
    const response = await postJson('/v1/messages', {
      model: CHAT_MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Say hello' }],
    });

    const body = (await response.json()) as { type: string; role: string; content: { type: string; text: string }[] };
    expect(response.status).toBe(200);
    expect(body).toEqual(expect.objectContaining({ type: 'message', role: 'assistant' }));
    expect(body.content[0]?.type).toBe('text');
    expect(body.content[0]?.text).not.toBe('');
  });

  it('media: lists the image model, and answers a generated image as PNG bytes', async () => {
    const models = (await (await fetch(`${offline.url}/api/image-models`)).json()) as {
      models: { name: string; fleet_nodes: string[] }[];
    };
    const response = await postJson('/api/generate-image', {
      model: DEFAULT_IMAGE_MODELS[0]?.name,
      prompt: 'a lake',
      width: 320,
      height: 192,
      steps: 1,
    });

    expect(models.models).toContainEqual(expect.objectContaining({ name: 'z-image-turbo', fleet_nodes: ['agent'] }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(readPngSize(Buffer.from(await response.arrayBuffer()))).toEqual({ width: 320, height: 192 });
  });

  it('media: transcribes a multipart upload', async () => {
    const audio = wavFile(1);
    const form = new FormData();
    form.append('audio', new Blob([audio], { type: 'audio/wav' }), 'speech.wav');

    const response = await fetch(`${offline.url}/api/transcribe`, { method: 'POST', body: form });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(
      expect.objectContaining({ text: `This is a simulated transcript of speech.wav (${audio.length} bytes).` }),
    );
  });

  it('dashboard: serves the page and counts the requests in the overview', async () => {
    const page = await fetch(`${offline.url}/dashboard/fleet`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toMatch(/<html/i);

    await eventually(async () => {
      const overview = (await (await fetch(`${offline.url}/dashboard/api/overview`)).json()) as {
        total_requests: number;
      };
      // The chat, the completion, the message, the image and the transcript, written by four functions.
      expect(overview.total_requests).toBeGreaterThanOrEqual(5);
    });
  });

  it('dashboard: runs a benchmark as its own invocation, through the local Lambda API', async () => {
    // The agent's own timer beats once a minute: on a loaded machine the heartbeat of the fleet case can be
    // over 30 s old by now, and its node offline with no model to benchmark.
    await agent.sendHeartbeat();
    const started = await postJson('/dashboard/api/benchmarks/start', { duration: 2, model_types: ['llm'] });
    const startedBody = (await started.json()) as { status: string; run_id: string };

    expect(started.status).toBe(200);
    expect(startedBody.status).toBe('started');
    const done = await eventually(async () => {
      const progress = (await (await fetch(`${offline.url}/dashboard/api/benchmarks/progress`)).json()) as {
        run_id: string;
        status: string;
        requests_completed: number;
      };
      expect(progress).toEqual(expect.objectContaining({ run_id: startedBody.run_id, status: 'complete' }));
      return progress;
    }, 20_000);
    expect(done.requests_completed).toBeGreaterThan(0);
  }, 30_000);

  it('poller: one pass through the Lambda Invoke API lists the FLEET_NODES node online', async () => {
    const response = await fetch(`${offline.lambdaUrl}/2015-03-31/functions/fleet-router-dev-poller/invocations`, {
      method: 'POST',
      body: JSON.stringify({ source: 'fleet.emulator' }),
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-amz-function-error')).toBeNull();
    expect(listed.requests.some((request) => request.path === '/api/tags')).toBe(true);
    await eventually(async () => expect(await nodeStatus('listed')).toBe('online'));
  });

  it('stops with SIGTERM and takes its DynamoDB stand-in with it', async () => {
    const endpoint = offline.tableEndpoint() ?? '';
    const servedBefore = (await fetch(endpoint, { method: 'POST' })).status;

    await offline.stop();

    expect(offline.process.exitCode).toBe(0);
    expect(servedBefore).toBeGreaterThanOrEqual(400);
    await expect(fetch(endpoint, { method: 'POST' })).rejects.toThrow('fetch failed');
  }, 30_000);
});
