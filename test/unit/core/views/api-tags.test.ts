import { describe, expect, it } from '@jest/globals';
import { toApiTags } from '../../../../lib/core/views/api-tags';
import { makeNodeModel, makeNodeRecord, T0 } from '../../../helpers/factories';
import { LLAMA_DETAILS, smallFleet } from '../../../helpers/small-fleet';

/** What no node reported is left out (an empty string is no value); these two are Ollama's own "none". */
const DEFAULT_DETAILS = { parent_model: '', families: [] };

describe('toApiTags', () => {
  it('lists the union of models on online and degraded nodes, one entry per name', () => {
    const studioFirstSeen = new Date(T0 - 600_000).toISOString();

    expect(toApiTags(smallFleet())).toEqual({
      models: [
        {
          name: 'llama3.2:3b',
          model: 'llama3.2:3b',
          modified_at: '2024-12-01T10:00:00Z',
          size: 2_019_393_189,
          digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
          details: { ...LLAMA_DETAILS, fleet_nodes: ['gpu1', 'gpu2'] },
          capabilities: ['completion'],
        },
        {
          name: 'nomic-embed-text:latest',
          model: 'nomic-embed-text:latest',
          modified_at: '2024-10-01T00:00:00Z',
          size: 274_302_450,
          digest: '0a109f422b47',
          details: { ...DEFAULT_DETAILS, format: 'gguf', family: 'nomic-bert', fleet_nodes: ['gpu1'] },
          capabilities: ['embedding'],
        },
        {
          name: 'qwen3:32b',
          model: 'qwen3:32b',
          modified_at: studioFirstSeen,
          size: 20_200_000_000,
          details: { ...DEFAULT_DETAILS, fleet_nodes: ['studio'] },
          capabilities: ['completion'],
        },
        {
          name: 'sd3-medium',
          model: 'sd3-medium',
          modified_at: studioFirstSeen,
          size: 0,
          details: { ...DEFAULT_DETAILS, type: 'image', fleet_nodes: ['studio'] },
        },
        {
          name: 'x/flux2-klein:latest',
          model: 'x/flux2-klein:latest',
          modified_at: '2025-01-01T00:00:00Z',
          size: 5_700_000_000,
          digest: '8a0b2e4c1d3f',
          details: { ...DEFAULT_DETAILS, format: 'safetensors', type: 'image', fleet_nodes: ['gpu2'] },
          capabilities: ['image'],
        },
        {
          name: 'z-image-turbo',
          model: 'z-image-turbo',
          modified_at: studioFirstSeen,
          size: 0,
          details: { ...DEFAULT_DETAILS, type: 'image', fleet_nodes: ['studio'] },
        },
      ],
    });
  });

  it('excludes offline nodes entirely', () => {
    const names = toApiTags(smallFleet()).models.map((entry) => entry.name);

    expect(names).not.toContain('mistral:7b');
    expect(toApiTags(smallFleet()).models.flatMap((entry) => entry.details.fleet_nodes)).not.toContain('gpu3');
  });

  it('merges an image sidecar model across nodes', () => {
    const image = (id: string) =>
      makeNodeRecord({
        id,
        models: [],
        loaded: [],
        sidecars: {
          image: {
            port: 11436,
            url: `http://${id}:11436`,
            models: [{ name: 'flux-dev', kind: 'image', binary: 'mflux-generate' }],
            busy: false,
          },
        },
      });

    const tags = toApiTags(smallFleet([image('b-node'), image('a-node')]));

    expect(tags.models).toHaveLength(1);
    expect(tags.models[0]?.details).toMatchObject({ type: 'image', fleet_nodes: ['a-node', 'b-node'] });
  });

  it('takes size, digest and time from the first node (by id) that reports them', () => {
    const older = makeNodeModel({ size: 1_000, digest: 'old', modifiedAt: '2024-01-01T00:00:00Z' });
    const newer = makeNodeModel({ size: 2_000, digest: 'new', modifiedAt: '2024-06-01T00:00:00Z' });

    const [entry] = toApiTags(
      smallFleet([makeNodeRecord({ id: 'b', models: [newer] }), makeNodeRecord({ id: 'a', models: [older] })]),
    ).models;

    expect(entry).toMatchObject({ size: 1_000, digest: 'old', modified_at: '2024-01-01T00:00:00Z' });
  });

  it('answers an empty list for an empty fleet', () => {
    expect(toApiTags(smallFleet([]))).toEqual({ models: [] });
  });

  it('keeps the node detail values over the defaults', () => {
    const node = makeNodeRecord({ models: [makeNodeModel({ details: { format: 'gguf', families: null } })] });

    expect(toApiTags(smallFleet([node])).models[0]?.details).toEqual({
      ...DEFAULT_DETAILS,
      format: 'gguf',
      families: null,
      fleet_nodes: ['gpu1'],
    });
  });

  it('leaves out digest and detail strings no node reported, and drops empty ones a node sent', () => {
    const node = makeNodeRecord({
      source: 'agent',
      models: [makeNodeModel({ digest: '', details: { format: '', family: 'qwen3', parameter_size: '' } })],
    });

    const [entry] = toApiTags(smallFleet([node])).models;

    expect(entry).not.toHaveProperty('digest');
    expect(entry?.details).toEqual({ ...DEFAULT_DETAILS, family: 'qwen3', fleet_nodes: ['gpu1'] });
  });
});
