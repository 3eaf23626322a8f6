import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { NODE_PARTITION } from '../../../../lib/services/store/keys';
import { createNodeRepository, type NodeRepository } from '../../../../lib/services/store/node-repository';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

function nodeRecord(id: string, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return {
    id,
    source: 'agent',
    url: `http://${id}:11434`,
    version: '0.12.6',
    agentVersion: '1.4.0',
    lanIp: '10.0.1.10',
    firstSeenAt: 1_767_225_600_000,
    lastSeenAt: 1_767_229_200_000,
    draining: false,
    hardware: {
      chip: 'Apple M3 Ultra',
      arch: 'arm64',
      coresPhysical: 32,
      memoryTotalGb: 512,
      memoryBandwidthGbps: 819,
    },
    memory: { totalGb: 512, usedGb: 301.5, availableGb: 210.5, pressure: 'normal' },
    cpu: { coresPhysical: 32, utilizationPct: 12.5 },
    thermal: { state: 'nominal' },
    disk: { totalGb: 4000, usedGb: 1200, availableGb: 2800 },
    models: [
      {
        name: 'llama3.2:3b',
        kind: 'llm',
        size: 2_019_393_189,
        digest: 'sha256:a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
        modifiedAt: '2026-01-01T10:00:00Z',
        details: { format: 'gguf', family: 'llama', parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
        capabilities: ['completion', 'tools'],
        contextLength: 131_072,
      },
      {
        name: 'nomic-embed-text:latest',
        kind: 'embedding',
        size: 274_302_450,
        digest: '',
        modifiedAt: '',
        details: {},
        capabilities: ['embedding'],
      },
    ],
    loaded: [
      {
        name: 'llama3.2:3b',
        size: 3_400_000_000,
        sizeVram: 3_400_000_000,
        expiresAt: '2026-01-01T10:05:00Z',
        contextLength: 8192,
        digest: 'sha256:a80c4f17',
        details: { family: 'llama' },
        requestsActive: 1,
      },
    ],
    recentlyUnloaded: { 'qwen3:8b': 1_767_229_000_000 },
    requestsActive: 1,
    numParallel: 4,
    maxLoadedModels: 3,
    sidecars: {
      image: {
        port: 11436,
        url: `http://${id}:11436`,
        models: [{ name: 'flux-schnell', kind: 'image', binary: 'mflux-generate' }],
        busy: false,
      },
    },
    ...overrides,
  };
}

describe('node repository', () => {
  let store: StoreFixture;
  let repository: NodeRepository;
  const logged: string[] = [];

  beforeAll(async () => {
    store = await startStore('nodes');
    repository = createNodeRepository(store.table, { log: (line) => logged.push(line) });
  });

  afterAll(async () => {
    await store.close();
  });

  it('round-trips a full record', async () => {
    const record = nodeRecord('studio-1');

    await repository.put(record);

    expect(await repository.get('studio-1')).toEqual(record);
  });

  it('returns undefined for an unknown node', async () => {
    expect(await repository.get('nobody')).toBeUndefined();
  });

  it('lists nodes by id, skipping a corrupt item and naming its key once', async () => {
    await repository.put(nodeRecord('studio-2', { source: 'listed', draining: true }));
    await store.table.putDoc({ pk: NODE_PARTITION, sk: 'broken-json', doc: '{"id":"broken-json",' });
    const { requestsActive: _dropped, ...missingField } = nodeRecord('broken-field');
    await store.table.putDoc({ pk: NODE_PARTITION, sk: 'broken-field', doc: JSON.stringify(missingField) });
    logged.length = 0;

    const nodes = await repository.list();

    expect(nodes.map((node) => node.id)).toEqual(['studio-1', 'studio-2']);
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatch(/NODE \/ broken-field: field "requestsActive"/);
    expect(logged[1]).toMatch(/NODE \/ broken-json: doc is not JSON/);
  });

  it('reads a corrupt record as absent', async () => {
    logged.length = 0;

    expect(await repository.get('broken-json')).toBeUndefined();
    expect(logged).toHaveLength(1);
  });

  it('overwrites a record on put', async () => {
    await repository.put(nodeRecord('studio-3'));
    await repository.put(nodeRecord('studio-3', { requestsActive: 7 }));
    expect((await repository.get('studio-3'))?.requestsActive).toBe(7);
  });
});
