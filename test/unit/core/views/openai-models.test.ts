import { describe, expect, it } from '@jest/globals';
import { toOpenAIModels } from '../../../../lib/core/views/openai-models';
import { makeNodeModel, makeNodeRecord, T0 } from '../../../helpers/factories';
import { smallFleet } from '../../../helpers/small-fleet';

const NOW_SECONDS = Math.floor(T0 / 1000);

describe('toOpenAIModels', () => {
  it('lists language, image and embedding models once per id with their backend', () => {
    expect(toOpenAIModels(smallFleet(), T0)).toEqual({
      object: 'list',
      data: [
        { id: 'llama3.2:3b', object: 'model', created: Date.UTC(2024, 11, 1, 10) / 1000, owned_by: 'ollama' },
        { id: 'nomic-embed-text', object: 'model', created: NOW_SECONDS, owned_by: 'fastembed' },
        {
          id: 'nomic-embed-text:latest',
          object: 'model',
          created: Date.UTC(2024, 9, 1) / 1000,
          owned_by: 'ollama',
        },
        { id: 'qwen3:32b', object: 'model', created: NOW_SECONDS, owned_by: 'ollama' },
        { id: 'sd3-medium', object: 'model', created: NOW_SECONDS, owned_by: 'diffusionkit' },
        { id: 'x/flux2-klein:latest', object: 'model', created: NOW_SECONDS, owned_by: 'ollama' },
        { id: 'z-image-turbo', object: 'model', created: NOW_SECONDS, owned_by: 'mflux' },
      ],
    });
  });

  it('leaves out rerankers, speech-to-text models and offline nodes', () => {
    const ids = toOpenAIModels(smallFleet(), T0).data.map((model) => model.id);

    expect(ids).not.toContain('bge-reranker-base');
    expect(ids).not.toContain('qwen3-asr');
    expect(ids).not.toContain('mistral:7b');
  });

  it('gives a name served by the runtime and a sidecar to ollama, and between sidecars the first by name', () => {
    const sidecarNode = makeNodeRecord({
      id: 'a-node',
      models: [],
      loaded: [],
      sidecars: {
        image: {
          port: 11436,
          url: 'http://a-node:11436',
          models: [
            { name: 'flux-dev', kind: 'image', binary: 'mflux-generate' },
            { name: 'sd3', kind: 'image', binary: 'mflux-generate' },
          ],
          busy: false,
        },
      },
    });
    const otherSidecar = makeNodeRecord({
      id: 'c-node',
      models: [],
      loaded: [],
      sidecars: {
        image: {
          port: 11436,
          url: 'http://c-node:11436',
          models: [{ name: 'sd3', kind: 'image', binary: 'diffusionkit-cli' }],
          busy: false,
        },
      },
    });
    const runtimeNode = makeNodeRecord({
      id: 'b-node',
      models: [makeNodeModel({ name: 'flux-dev', kind: 'image', capabilities: ['image'], modifiedAt: '' })],
      loaded: [],
    });

    const data = toOpenAIModels(smallFleet([sidecarNode, otherSidecar, runtimeNode]), T0).data;

    expect(data).toEqual([
      { id: 'flux-dev', object: 'model', created: NOW_SECONDS, owned_by: 'ollama' },
      { id: 'sd3', object: 'model', created: NOW_SECONDS, owned_by: 'diffusionkit' },
    ]);
  });

  it('answers an empty list for an empty fleet', () => {
    expect(toOpenAIModels(smallFleet([]), T0)).toEqual({ object: 'list', data: [] });
  });
});
