import { describe, expect, it } from '@jest/globals';
import { knownNonNativeMessage, nonNativeModelMessage } from '../../../../lib/features/pull/non-native-model';
import { bareAgentNode, makeNodeModel, snapshotOf } from '../../../helpers/factories';

describe('knownNonNativeMessage', () => {
  it.each([
    ['z-image-turbo', 'uv tool install mflux'],
    ['flux-dev', 'uv tool install mflux'],
    ['flux-schnell:latest', 'uv tool install mflux'],
    ['Flux-Dev', 'uv tool install mflux'],
    ['sd3-medium', 'uv tool install diffusionkit'],
    ['sd3.5-large', 'uv tool install diffusionkit'],
    ['qwen3-asr', "pip install 'mlx-qwen3-asr[serve]'"],
    ['qwen3-asr-1.7b', "pip install 'mlx-qwen3-asr[serve]'"],
    ['mlx:qwen3-30b-a3b-4bit', 'uv tool install mlx-lm'],
    ['mlx-community/Qwen3-8B-4bit', 'uv tool install mlx-lm'],
  ])('refuses %s with the instruction %s', (name, install) => {
    const message = knownNonNativeMessage(name);

    expect(message).toContain(`'${name}'`);
    expect(message).toContain('not a runtime-native model');
    expect(message).toContain(install);
  });

  it.each([
    'llama3.2:3b',
    'x/z-image-turbo',
    'x/flux2-klein:latest',
    'flux-dev-distilled-gguf',
    'sd3-medium-gguf:q4',
    'qwen3:8b',
    'mlxish:7b',
  ])('lets %s be pulled', (name) => {
    expect(knownNonNativeMessage(name)).toBeUndefined();
  });
});

describe('nonNativeModelMessage', () => {
  const sidecarFleet = snapshotOf([
    bareAgentNode('studio', 100, {
      sidecars: {
        image: {
          port: 1,
          url: 'http://studio:1',
          models: [
            { name: 'flux2-klein', kind: 'image', binary: 'mflux-generate' },
            { name: 'sd-xl-turbo', kind: 'image', binary: 'diffusionkit-cli' },
          ],
          busy: false,
        },
        transcription: {
          port: 2,
          url: 'http://studio:2',
          models: [{ name: 'whisper-v3', kind: 'transcription' }],
          busy: false,
        },
        textEmbedding: {
          port: 3,
          url: 'http://studio:3',
          models: [{ name: 'ms-marco-minilm-l-6-v2', kind: 'rerank', dimensions: 0 }],
          busy: false,
        },
      },
    }),
    bareAgentNode('gpu', 50, { models: [makeNodeModel({ name: 'bge-m3:latest' })] }),
  ]);

  it.each([
    ['flux2-klein', 'uv tool install mflux'],
    ['sd-xl-turbo', 'uv tool install diffusionkit'],
    ['whisper-v3', "pip install 'mlx-qwen3-asr[serve]'"],
    ['ms-marco-minilm-l-6-v2', 'downloads it on first use'],
  ])('refuses %s, which only a sidecar serves, with %s', (name, instruction) => {
    expect(nonNativeModelMessage(name, sidecarFleet)).toContain(instruction);
  });

  it('lets a name the runtime of some node also has be pulled', () => {
    const fleet = snapshotOf([
      bareAgentNode('a', 10, {
        sidecars: {
          textEmbedding: { port: 3, url: 'http://a:3', models: [{ name: 'bge-m3', kind: 'embedding' }], busy: false },
        },
      }),
      bareAgentNode('b', 10, { models: [makeNodeModel({ name: 'bge-m3:latest' })] }),
    ]);

    expect(nonNativeModelMessage('bge-m3', fleet)).toBeUndefined();
  });

  it('lets a name no node knows be pulled', () => {
    expect(nonNativeModelMessage('tinyllama:1.1b', sidecarFleet)).toBeUndefined();
  });

  it('refuses the static names whatever the fleet holds', () => {
    expect(nonNativeModelMessage('flux-dev', sidecarFleet)).toContain('uv tool install mflux');
  });
});
