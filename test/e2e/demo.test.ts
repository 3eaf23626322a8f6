/**
 * `npm run demo`: the emulator with its simulated fleet shows every kind of model a newcomer can try, and
 * serves each kind of work — embeddings (Ollama and sidecar), rerank, images and speech-to-text, which
 * the demo switches on; it prints the dashboard's address, and its own demo traffic shows in the
 * dashboard's figures within seconds (FLEET_DEMO_TRAFFIC=false turns that traffic off).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, type RouterProcess, startRouter } from './router-process';

let router: RouterProcess;

interface TagsBody {
  models: { name: string; capabilities?: string[]; details: { fleet_nodes: string[]; type?: string } }[];
}

interface StatusBody {
  nodes: {
    node_id: string;
    status: string;
    image?: unknown;
    transcription?: unknown;
    text_embedding?: { models_available: { kind: string }[] } | null;
  }[];
}

beforeAll(async () => {
  router = await startRouter({ FLEET_DEMO_TRAFFIC: 'true' }, ['--demo']);
}, 30_000);

afterAll(async () => {
  await router?.stop();
});

describe('npm run demo', () => {
  it('prints the dashboard’s address after the listening line', async () => {
    await expectDashboardLine(router);
  });

  it('sends demo traffic of its own, which the dashboard counts within seconds', async () => {
    const overview = await eventually(async () => {
      const body = (await (await fetch(`${router.url}/dashboard/api/overview`)).json()) as {
        last_24h: { requests: number; completed: number };
        models_count: number;
      };
      expect(body.last_24h.completed).toBeGreaterThanOrEqual(3);
      return body;
    }, 20_000);

    expect(overview.models_count).toBeGreaterThanOrEqual(2);
    const traces = (await (await fetch(`${router.url}/dashboard/api/traces?limit=50`)).json()) as {
      traces: { tags: string[]; original_format: string }[];
    };
    expect(traces.traces.some((trace) => trace.tags.length > 0)).toBe(true);
    expect(new Set(traces.traces.map((trace) => trace.original_format)).size).toBeGreaterThanOrEqual(3);
  });

  it('brings up at least three nodes, agents and a polled one, all online', async () => {
    const status = await eventually(async () => {
      const body = (await (await fetch(`${router.url}/fleet/status`)).json()) as StatusBody;
      expect(body.nodes.filter((node) => node.status === 'online').length).toBeGreaterThanOrEqual(3);
      return body;
    }, 15_000);

    expect(status.nodes.some((node) => node.image !== undefined && node.image !== null)).toBe(true);
    expect(status.nodes.some((node) => node.transcription !== undefined && node.transcription !== null)).toBe(true);
    expect(
      status.nodes
        .flatMap((node) => node.text_embedding?.models_available ?? [])
        .some((model) => model.kind === 'rerank'),
    ).toBe(true);
  });

  it('offers chat, thinking, tool, vision, embedding and image models', async () => {
    const tags = (await (await fetch(`${router.url}/api/tags`)).json()) as TagsBody;
    const capabilities = new Set(tags.models.flatMap((model) => model.capabilities ?? []));

    for (const capability of ['completion', 'thinking', 'tools', 'vision', 'embedding'])
      expect(capabilities).toContain(capability);
    expect(tags.models.some((model) => model.details.type === 'image')).toBe(true);
  });

  it('embeds with an Ollama embedding model and with the sidecar model', async () => {
    await eventually(async () => {
      for (const model of ['nomic-embed-text', 'bge-small-en-v1.5']) {
        const reply = await post('/v1/embeddings', { model, input: ['one', 'two'] });
        expect(reply.status).toBe(200);
        const body = (await reply.json()) as { data: { embedding: number[] }[] };
        expect(body.data).toHaveLength(2);
        expect(body.data[0]?.embedding.length).toBeGreaterThan(0);
      }
    }, 15_000);
  });

  it('reranks with the default reranker', async () => {
    const body = await eventually(async () => {
      const reply = await post('/v1/rerank', {
        query: 'capital of France',
        documents: ['Berlin', 'Paris is the capital of France'],
      });
      expect(reply.status).toBe(200);
      return (await reply.json()) as { results: { index: number; relevance_score: number }[] };
    }, 15_000);

    expect(body.results).toHaveLength(2);
    for (const result of body.results) expect(result.relevance_score).toBeGreaterThanOrEqual(0);
  });

  it('generates an image, switched on by the demo', async () => {
    const reply = await eventually(async () => {
      const answer = await post('/api/generate-image', {
        model: 'z-image-turbo',
        prompt: 'a lighthouse',
        width: 64,
        height: 64,
      });
      expect(answer.status).toBe(200);
      return answer;
    }, 15_000);

    expect(reply.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await reply.arrayBuffer());
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('transcribes an upload, switched on by the demo', async () => {
    const body = await eventually(async () => {
      const form = new FormData();
      form.append('audio', new Blob([Buffer.from('RIFF demo audio')], { type: 'audio/wav' }), 'speech.wav');
      const reply = await fetch(`${router.url}/api/transcribe`, { method: 'POST', body: form });
      expect(reply.status).toBe(200);
      return (await reply.json()) as { text: unknown };
    }, 15_000);

    expect(typeof body.text).toBe('string');
  });
});

describe('npm start', () => {
  it('prints the dashboard’s address after the listening line too', async () => {
    const plain = await startRouter();
    try {
      await expectDashboardLine(plain);
    } finally {
      await plain.stop();
    }
  });
});

/** The line after "listening on" names the page: `Dashboard: http://127.0.0.1:<port>/dashboard`. */
async function expectDashboardLine(process: RouterProcess): Promise<void> {
  await eventually(async () => {
    const lines = process.output().split('\n');
    const listening = lines.findIndex((line) => line.startsWith('Fleet Router listening on '));
    expect(listening).toBeGreaterThanOrEqual(0);
    expect(lines[listening + 1]).toBe(`Dashboard: ${process.url}/dashboard`);
  }, 5000);
}

function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${router.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}
