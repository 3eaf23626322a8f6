import { describe, expect, it } from '@jest/globals';
import { adminTargets } from '../../../../lib/features/model-admin/admin-targets';
import { makeNodeModel, makeNodeRecord, snapshotOf, T0 } from '../../../helpers/factories';

const llama = makeNodeModel({ name: 'llama3.2:latest' });
const fleet = snapshotOf([
  makeNodeRecord({ id: 'b', models: [llama] }),
  makeNodeRecord({ id: 'a', models: [llama] }),
  makeNodeRecord({ id: 'gone', lastSeenAt: T0 - 60_000, models: [llama] }),
  makeNodeRecord({ id: 'leaving', draining: true, models: [llama] }),
  makeNodeRecord({
    id: 'studio',
    source: 'agent',
    models: [],
    sidecars: {
      image: {
        port: 11436,
        url: 'http://s:11436',
        models: [{ name: 'sd3-medium', kind: 'image', binary: 'diffusionkit-cli' }],
        busy: false,
      },
      textEmbedding: {
        port: 11439,
        url: 'http://s:11439',
        models: [{ name: 'bge-reranker-base', kind: 'rerank' }],
        busy: false,
      },
    },
  }),
]);

const options = (name: string, nodeId?: string) => ({
  name,
  nodeId,
  action: 'deleted',
  notFound: `model '${name}' not found`,
});

describe('adminTargets', () => {
  it('targets every online holder by id, an untagged name matching :latest, never offline or draining nodes', () => {
    expect(adminTargets(fleet, options('llama3.2')).map((node) => node.id)).toEqual(['a', 'b']);
  });

  it('targets only the node named, whatever its record says it holds', () => {
    expect(adminTargets(fleet, options('mistral:7b', 'b')).map((node) => node.id)).toEqual(['b']);
  });

  it('answers 404 for an unknown node, 503 for an offline or draining one', () => {
    expect(() => adminTargets(fleet, options('llama3.2', 'nowhere'))).toThrow(
      expect.objectContaining({ status: 404, message: "node 'nowhere' not found" }),
    );
    expect(() => adminTargets(fleet, options('llama3.2', 'gone'))).toThrow(expect.objectContaining({ status: 503 }));
    expect(() => adminTargets(fleet, options('llama3.2', 'leaving'))).toThrow(
      expect.objectContaining({ status: 503, message: "node 'leaving' is draining" }),
    );
  });

  it('answers the 404 it is given when no node holds the model', () => {
    expect(() => adminTargets(fleet, options('mistral:7b'))).toThrow(
      expect.objectContaining({ status: 404, message: "model 'mistral:7b' not found" }),
    );
  });

  it('refuses a sidecar model with 400 naming the node and how to remove it there', () => {
    expect(() => adminTargets(fleet, options('sd3-medium'))).toThrow(
      expect.objectContaining({
        status: 400,
        message: expect.stringContaining(
          "'sd3-medium' is served by the image sidecar of node 'studio', not by its Ollama, so it cannot be deleted",
        ),
      }),
    );
    expect(() => adminTargets(fleet, options('sd3-medium'))).toThrow(/uv tool uninstall diffusionkit/);
    expect(() => adminTargets(fleet, options('bge-reranker-base', 'studio'))).toThrow(/fastembed cache/);
  });
});
