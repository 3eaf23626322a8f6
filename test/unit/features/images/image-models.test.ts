import { describe, expect, it } from '@jest/globals';
import { NotFoundError } from '../../../../lib/core/errors';
import type { NodeRecord, Sidecar } from '../../../../lib/core/fleet/node';
import { imageModelEntries, isImageModel, requireImageModel } from '../../../../lib/features/images/image-models';
import { makeNodeModel, makeNodeRecord, snapshotOf, T0 } from '../../../helpers/factories';

function imageSidecar(models: Sidecar['models']): Sidecar {
  return { port: 8090, url: 'http://10.0.0.5:8090', models, busy: false };
}

const zImage = { name: 'z-image-turbo', kind: 'image', binary: 'mflux-generate-z-image-turbo' } as const;
const sd3 = { name: 'sd3-medium', kind: 'image', binary: 'diffusionkit-cli' } as const;
const ollamaImage = makeNodeModel({ name: 'x/z-image-turbo:latest', kind: 'image', capabilities: ['image'] });

function node(id: string, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({ id, source: 'agent', loaded: [], ...overrides });
}

describe('imageModelEntries', () => {
  it('lists one entry per model and backend, each with its nodes, sorted', () => {
    const snapshot = snapshotOf([
      node('studio-b', { sidecars: { image: imageSidecar([zImage]) } }),
      node('studio-a', { models: [makeNodeModel(), ollamaImage], sidecars: { image: imageSidecar([zImage, sd3]) } }),
      node('mini', { models: [ollamaImage] }),
    ]);

    expect(imageModelEntries(snapshot)).toEqual([
      { name: 'sd3-medium', type: 'image', backend: 'diffusionkit', fleet_nodes: ['studio-a'] },
      { name: 'x/z-image-turbo:latest', type: 'image', backend: 'ollama', fleet_nodes: ['mini', 'studio-a'] },
      { name: 'z-image-turbo', type: 'image', backend: 'mflux', fleet_nodes: ['studio-a', 'studio-b'] },
    ]);
  });

  it('lists the same name once per backend', () => {
    const flux = (binary?: string) => ({ name: 'flux', kind: 'image' as const, ...(binary ? { binary } : {}) });
    const snapshot = snapshotOf([
      node('a', { sidecars: { image: imageSidecar([flux('mflux-generate')]) } }),
      node('b', { sidecars: { image: imageSidecar([flux()]) } }),
      node('c', { models: [makeNodeModel({ name: 'flux', kind: 'image' })] }),
    ]);

    expect(imageModelEntries(snapshot).map((entry) => [entry.backend, entry.fleet_nodes])).toEqual([
      ['image-sidecar', ['b']],
      ['mflux', ['a']],
      ['ollama', ['c']],
    ]);
  });

  it('leaves out offline and draining nodes, and models that are not image models', () => {
    const snapshot = snapshotOf([
      node('gone', { lastSeenAt: T0 - 60_000, sidecars: { image: imageSidecar([zImage]) } }),
      node('leaving', { draining: true, models: [ollamaImage] }),
      node('chat-only', { models: [makeNodeModel()] }),
    ]);

    expect(imageModelEntries(snapshot)).toEqual([]);
  });

  it('keeps a degraded node', () => {
    const snapshot = snapshotOf([node('slow', { lastSeenAt: T0 - 20_000, models: [ollamaImage] })]);

    expect(imageModelEntries(snapshot)).toEqual([
      { name: 'x/z-image-turbo:latest', type: 'image', backend: 'ollama', fleet_nodes: ['slow'] },
    ]);
  });
});

describe('requireImageModel', () => {
  const snapshot = snapshotOf([
    node('studio', { models: [makeNodeModel(), ollamaImage], sidecars: { image: imageSidecar([zImage]) } }),
  ]);

  it('accepts an image model by its name or without its :latest tag', () => {
    expect(isImageModel(snapshot, 'z-image-turbo')).toBe(true);
    expect(isImageModel(snapshot, 'x/z-image-turbo')).toBe(true);
    expect(() => requireImageModel(snapshot, ['z-image-turbo'])).not.toThrow();
  });

  it('accepts a request whose fallback is an image model', () => {
    expect(() => requireImageModel(snapshot, ['flux-dev', 'z-image-turbo'])).not.toThrow();
  });

  it('answers 404 for a chat model, naming the image models the fleet has', () => {
    expect(() => requireImageModel(snapshot, ['llama3.2:3b'])).toThrow(
      new NotFoundError(
        "image model 'llama3.2:3b' not found on any node; image models in the fleet: x/z-image-turbo:latest, z-image-turbo",
        'model_not_found',
      ),
    );
  });

  it('says so when the fleet has no image model at all', () => {
    let thrown: unknown;
    try {
      requireImageModel(snapshotOf([node('chat')]), ['flux-dev']);
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(NotFoundError);
    expect(thrown).toMatchObject({
      status: 404,
      message: "image model 'flux-dev' not found on any node; no node in the fleet has an image model",
    });
  });
});
