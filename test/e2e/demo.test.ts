/** `npm run demo`: the emulator with its simulated fleet shows every kind of model a newcomer can try. */
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
  router = await startRouter({}, ['--demo']);
}, 30_000);

afterAll(async () => {
  await router?.stop();
});

describe('npm run demo', () => {
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
});
