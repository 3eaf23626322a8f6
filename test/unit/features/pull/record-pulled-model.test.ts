/**
 * What a finished pull writes into the node's record: the entry inferred when the node's listing cannot
 * be had, and the registry's `recordModel`, over an in-memory node store.
 */
import { describe, expect, it } from '@jest/globals';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { inferredPulledModel } from '../../../../lib/features/pull/record-pulled-model';
import { createFleetRegistry, type NodeStore } from '../../../../lib/services/registry/registry';
import { makeNodeModel, makeNodeRecord, T0 } from '../../../helpers/factories';

function memoryStore(records: readonly NodeRecord[]): NodeStore & { readonly saved: Map<string, NodeRecord> } {
  const saved = new Map(records.map((record) => [record.id, record]));
  return {
    saved,
    put: async (record) => {
      saved.set(record.id, record);
    },
    get: async (id) => saved.get(id),
    list: async () => [...saved.values()],
  };
}

const config = { degradedAfterMs: 15_000, offlineAfterMs: 30_000, snapshotMaxAgeMs: 1000 };

describe('inferredPulledModel', () => {
  it('names an untagged model as Ollama lists it, with its size and guessed capabilities', () => {
    expect(inferredPulledModel('tinyllama', 637_700_000, T0)).toEqual({
      name: 'tinyllama:latest',
      kind: 'llm',
      size: 637_700_000,
      digest: '',
      modifiedAt: '2025-01-01T00:00:00.000Z',
      details: {},
      capabilities: ['completion'],
    });
  });

  it('takes an embedding model for one', () => {
    expect(inferredPulledModel('mxbai-embed-large:335m', 1, T0)).toMatchObject({
      name: 'mxbai-embed-large:335m',
      kind: 'embedding',
    });
  });
});

describe('FleetRegistry.recordModel', () => {
  const existing = makeNodeModel({ name: 'qwen3:8b' });

  it('adds the model to the stored record, sorted by name, and shows it in the snapshot at once', async () => {
    const store = memoryStore([makeNodeRecord({ id: 'gpu1', lastSeenAt: T0, models: [existing] })]);
    const registry = createFleetRegistry({ store, config, clock: () => T0, log: () => undefined });
    await registry.snapshot();

    const recorded = await registry.recordModel('gpu1', makeNodeModel({ name: 'llama3.2:1b', size: 1 }));

    expect(recorded).toBe(true);
    expect(store.saved.get('gpu1')?.models.map((model) => model.name)).toEqual(['llama3.2:1b', 'qwen3:8b']);
    expect((await registry.snapshot()).placements.get('llama3.2:1b')?.map((placement) => placement.node.id)).toEqual([
      'gpu1',
    ]);
  });

  it('replaces an entry of the same name instead of listing it twice', async () => {
    const store = memoryStore([makeNodeRecord({ id: 'gpu1', lastSeenAt: T0, models: [existing] })]);
    const registry = createFleetRegistry({ store, config, clock: () => T0, log: () => undefined });

    await registry.recordModel('gpu1', makeNodeModel({ name: 'qwen3:8b', size: 42 }));

    expect(store.saved.get('gpu1')?.models).toEqual([{ ...existing, size: 42 }]);
  });

  it('keeps everything else of the record, lastSeenAt included', async () => {
    const record = makeNodeRecord({ id: 'gpu1', lastSeenAt: T0 - 5000, models: [] });
    const store = memoryStore([record]);
    const registry = createFleetRegistry({ store, config, clock: () => T0, log: () => undefined });

    await registry.recordModel('gpu1', existing);

    expect(store.saved.get('gpu1')).toEqual({ ...record, models: [existing] });
  });

  it('answers false for a node it does not know, and stores nothing', async () => {
    const store = memoryStore([]);
    const registry = createFleetRegistry({ store, config, clock: () => T0, log: () => undefined });

    expect(await registry.recordModel('nope', existing)).toBe(false);
    expect(store.saved.size).toBe(0);
  });
});
