import { describe, expect, it } from '@jest/globals';
import { buildSnapshot, hasTag, modelNameKeys } from '../../../../lib/core/fleet/snapshot';
import { makeLoadedModel, makeNodeModel, makeNodeRecord, T0 } from '../../../helpers/factories';

const thresholds = { degradedAfterMs: 15_000, offlineAfterMs: 30_000 };

const records = [
  makeNodeRecord({
    id: 'gpu3',
    lastSeenAt: T0 - 40_000,
    models: [makeNodeModel({ name: 'mistral:7b' }), makeNodeModel()],
    loaded: [],
  }),
  makeNodeRecord({ id: 'gpu2', lastSeenAt: T0 - 20_000, loaded: [] }),
  makeNodeRecord({
    id: 'gpu1',
    lastSeenAt: T0 - 1_000,
    models: [
      makeNodeModel(),
      makeNodeModel({ name: 'nomic-embed-text:latest', kind: 'embedding', capabilities: ['embedding'] }),
      makeNodeModel({ name: 'custom-untagged' }),
    ],
  }),
  makeNodeRecord({ id: 'gpu4', lastSeenAt: T0, draining: true, models: [makeNodeModel({ name: 'qwen3:8b' })] }),
  makeNodeRecord({
    id: 'studio',
    source: 'agent',
    lastSeenAt: T0,
    models: [],
    loaded: [],
    sidecars: {
      image: {
        port: 11436,
        url: 'http://10.0.0.9:11436',
        models: [{ name: 'z-image-turbo', kind: 'image', binary: 'mflux-generate-z-image-turbo' }],
        busy: false,
      },
      transcription: {
        port: 11437,
        url: 'http://10.0.0.9:11437',
        models: [{ name: 'qwen3-asr', kind: 'transcription', binary: 'mlx-qwen3-asr' }],
        busy: false,
      },
      textEmbedding: {
        port: 11439,
        url: 'http://10.0.0.9:11439',
        models: [
          { name: 'nomic-embed-text', kind: 'embedding', dimensions: 768 },
          { name: 'bge-reranker-base', kind: 'rerank', dimensions: 0 },
        ],
        busy: false,
      },
    },
  }),
];

function placementsOf(name: string) {
  const snapshot = buildSnapshot(records, T0, thresholds);
  return (snapshot.placements.get(name) ?? []).map((placement) => ({
    node: placement.node.id,
    backend: placement.backend,
    kind: placement.kind,
    loaded: placement.loaded !== undefined,
  }));
}

describe('buildSnapshot', () => {
  it('lists every node sorted by id with its status', () => {
    const snapshot = buildSnapshot(records, T0, thresholds);

    expect(snapshot.takenAt).toBe(T0);
    expect(snapshot.nodes.map((node) => [node.id, node.status])).toEqual([
      ['gpu1', 'online'],
      ['gpu2', 'degraded'],
      ['gpu3', 'offline'],
      ['gpu4', 'offline'],
      ['studio', 'online'],
    ]);
    expect(snapshot.byId.get('gpu3')?.status).toBe('offline');
    expect(snapshot.byId.size).toBe(5);
  });

  it('places models on online and degraded nodes, in node-id order, marking hot ones', () => {
    expect(placementsOf('llama3.2:3b')).toEqual([
      { node: 'gpu1', backend: 'ollama', kind: 'llm', loaded: true },
      { node: 'gpu2', backend: 'ollama', kind: 'llm', loaded: false },
    ]);
  });

  it('never places a model on an offline or draining node', () => {
    expect(placementsOf('mistral:7b')).toEqual([]);
    expect(placementsOf('qwen3:8b')).toEqual([]);
  });

  it('finds a model both with and without the latest tag', () => {
    const withTag = placementsOf('nomic-embed-text:latest');

    expect(withTag).toEqual([
      { node: 'gpu1', backend: 'ollama', kind: 'embedding', loaded: false },
      { node: 'studio', backend: 'text-embedding', kind: 'embedding', loaded: false },
    ]);
    expect(placementsOf('nomic-embed-text')).toEqual(withTag);
    expect(placementsOf('custom-untagged:latest')).toEqual([
      { node: 'gpu1', backend: 'ollama', kind: 'llm', loaded: false },
    ]);
  });

  it('places sidecar models with their backend and kind', () => {
    expect(placementsOf('z-image-turbo')).toEqual([{ node: 'studio', backend: 'image', kind: 'image', loaded: false }]);
    expect(placementsOf('qwen3-asr')).toEqual([
      { node: 'studio', backend: 'transcription', kind: 'transcription', loaded: false },
    ]);
    expect(placementsOf('bge-reranker-base')).toEqual([
      { node: 'studio', backend: 'text-embedding', kind: 'rerank', loaded: false },
    ]);
    const [image] = buildSnapshot(records, T0, thresholds).placements.get('z-image-turbo') ?? [];
    expect(image?.sidecarModel?.binary).toBe('mflux-generate-z-image-turbo');
    expect(image?.model).toBeUndefined();
  });

  it('keeps the runtime entry on runtime placements', () => {
    const [placement] = buildSnapshot(records, T0, thresholds).placements.get('llama3.2:3b') ?? [];

    expect(placement?.model).toEqual(makeNodeModel());
    expect(placement?.loaded).toEqual(makeLoadedModel());
  });

  it('has no placements for an empty fleet', () => {
    const snapshot = buildSnapshot([], T0, thresholds);

    expect(snapshot.nodes).toEqual([]);
    expect(snapshot.placements.size).toBe(0);
  });
});

describe('modelNameKeys', () => {
  it.each([
    ['llama3', ['llama3', 'llama3:latest']],
    ['llama3:latest', ['llama3:latest', 'llama3']],
    ['llama3:8b', ['llama3:8b']],
    ['registry.local:5000/team/llama3', ['registry.local:5000/team/llama3', 'registry.local:5000/team/llama3:latest']],
    ['hf.co/org/model:Q4_K_M', ['hf.co/org/model:Q4_K_M']],
  ])('indexes %s under %j', (name, keys) => {
    expect(modelNameKeys(name)).toEqual(keys);
  });

  it('does not take a registry port for a tag', () => {
    expect(hasTag('registry.local:5000/llama3')).toBe(false);
    expect(hasTag('registry.local:5000/llama3:8b')).toBe(true);
  });
});
