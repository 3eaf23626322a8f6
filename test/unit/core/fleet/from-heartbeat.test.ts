import { describe, expect, it } from '@jest/globals';
import { drainNode, nodeFromHeartbeat, resolveAgentUrl } from '../../../../lib/core/fleet/from-heartbeat';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { makeHeartbeat, makeLoadedModel, makeNodeModel, makeNodeRecord, T0 } from '../../../helpers/factories';

const GIB = 2 ** 30;

describe('nodeFromHeartbeat', () => {
  it('maps a full heartbeat to a record', () => {
    const record = nodeFromHeartbeat(makeHeartbeat(), { now: T0, peerIp: '10.0.0.5' });

    const expected: NodeRecord = {
      id: 'studio',
      source: 'agent',
      url: 'http://10.0.0.5:11434',
      agentVersion: '0.9.2',
      lanIp: '10.0.0.5',
      firstSeenAt: T0,
      lastSeenAt: T0,
      draining: false,
      hardware: {
        chip: 'Apple M2 Ultra',
        arch: 'apple_silicon',
        coresPhysical: 24,
        memoryTotalGb: 192,
        memoryBandwidthGbps: 800,
      },
      memory: { totalGb: 192, usedGb: 80.5, availableGb: 111.5, pressure: 'normal' },
      cpu: { coresPhysical: 24, utilizationPct: 12.5 },
      thermal: { state: 'unknown' },
      disk: { totalGb: 1858.2, usedGb: 912.4, availableGb: 945.8 },
      models: [
        {
          name: 'llama3.2:3b',
          kind: 'llm',
          size: 2_019_393_189,
          digest: '',
          modifiedAt: '',
          details: { parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
          capabilities: ['completion'],
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
        {
          name: 'qwen3:32b',
          kind: 'llm',
          size: 20_200_000_000,
          digest: '',
          modifiedAt: '',
          details: {},
          capabilities: ['completion'],
        },
      ],
      loaded: [
        {
          name: 'llama3.2:3b',
          size: Math.round(3.18 * GIB),
          sizeVram: Math.round(3.18 * GIB),
          expiresAt: '',
          digest: '',
          details: { parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
          contextLength: 8192,
          requestsActive: 1,
        },
      ],
      recentlyUnloaded: {},
      requestsActive: 1,
      numParallel: 4,
      maxLoadedModels: 3,
      sidecars: {},
    };
    expect(record).toEqual(expected);
  });

  it('keeps firstSeenAt, moves lastSeenAt and clears the last error', () => {
    const previous = makeNodeRecord({
      id: 'studio',
      firstSeenAt: T0 - 100_000,
      lastSeenAt: T0 - 20_000,
      lastErrorAt: T0 - 10_000,
      lastError: 'ECONNREFUSED',
    });

    const record = nodeFromHeartbeat(makeHeartbeat(), { previous, now: T0 });

    expect(record.firstSeenAt).toBe(T0 - 100_000);
    expect(record.lastSeenAt).toBe(T0);
    expect(record).not.toHaveProperty('lastError');
    expect(record).not.toHaveProperty('lastErrorAt');
  });

  it('reads num_parallel 0 or absent as 1 and max_loaded_models 0 as unknown', () => {
    const base = makeHeartbeat().ollama;
    const { num_parallel: _ignored, ...withoutParallel } = base;

    const zero = nodeFromHeartbeat(makeHeartbeat({ ollama: { ...base, num_parallel: 0, max_loaded_models: 0 } }), {
      now: T0,
    });
    const absent = nodeFromHeartbeat(makeHeartbeat({ ollama: withoutParallel }), { now: T0 });

    expect(zero.numParallel).toBe(1);
    expect(zero).not.toHaveProperty('maxLoadedModels');
    expect(absent.numParallel).toBe(1);
  });

  it('sums per-model requests when the node total is missing', () => {
    const ollama = {
      ...makeHeartbeat().ollama,
      requests_active: null,
      models_loaded: [
        { name: 'a:1b', size_gb: 1, requests_active: 2 },
        { name: 'b:1b', size_gb: 1, requests_active: 3 },
      ],
    };

    expect(nodeFromHeartbeat(makeHeartbeat({ ollama }), { now: T0 }).requestsActive).toBe(5);
  });

  it('takes the draining flag from the payload', () => {
    expect(nodeFromHeartbeat(makeHeartbeat({ draining: true }), { now: T0 }).draining).toBe(true);
    expect(nodeFromHeartbeat(makeHeartbeat({ draining: null }), { now: T0 }).draining).toBe(false);
  });

  it('lists a loaded model the agent did not list on disk', () => {
    const ollama = { ...makeHeartbeat().ollama, models_available: [] };

    const record = nodeFromHeartbeat(makeHeartbeat({ ollama }), { now: T0 });

    expect(record.models.map((model) => model.name)).toEqual(['llama3.2:3b']);
  });

  it('ignores empty model names', () => {
    const ollama = { ...makeHeartbeat().ollama, models_loaded: [], models_available: ['', 'qwen3:32b'] };

    expect(nodeFromHeartbeat(makeHeartbeat({ ollama }), { now: T0 }).models.map((model) => model.name)).toEqual([
      'qwen3:32b',
    ]);
  });

  it('copies thermal temperature and pressure as sent', () => {
    const record = nodeFromHeartbeat(
      makeHeartbeat({
        thermal: { state: 'warning', temperature_c: 88.5 },
        memory: { total_gb: 64, used_gb: 60, available_gb: 4, pressure: 'critical' },
      }),
      { now: T0 },
    );

    expect(record.thermal).toEqual({ state: 'warning', temperatureC: 88.5 });
    expect(record.memory?.pressure).toBe('critical');
  });
});

describe('nodeFromHeartbeat model metadata', () => {
  const meta = {
    'llama3.2:3b': {
      modified_at: '2024-12-01T10:00:00Z',
      digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
      format: 'gguf',
      family: 'llama',
      families: ['llama'],
      parameter_size: '3.2B',
      quantization_level: 'Q4_K_M',
      parent_model: '',
      capabilities: ['completion', 'tools', 'vision'],
    },
    'flux-schnell:latest': { capabilities: ['image'] },
    'bge-m3:latest': { family: 'bert' },
  };

  function withMeta(models_available_meta: unknown) {
    const ollama = {
      ...makeHeartbeat().ollama,
      models_available: ['llama3.2:3b', 'flux-schnell:latest', 'bge-m3:latest', 'mistral:7b'],
      models_available_meta: models_available_meta as never,
    };
    return makeHeartbeat({ ollama });
  }

  it('uses the per-model metadata the agent sends', () => {
    const record = nodeFromHeartbeat(withMeta(meta), { now: T0 });
    const byName = new Map(record.models.map((model) => [model.name, model]));

    expect(byName.get('llama3.2:3b')).toMatchObject({
      kind: 'llm',
      digest: meta['llama3.2:3b'].digest,
      modifiedAt: '2024-12-01T10:00:00Z',
      capabilities: ['completion', 'tools', 'vision'],
      details: { format: 'gguf', family: 'llama', families: ['llama'], parent_model: '' },
    });
    expect(byName.get('flux-schnell:latest')?.kind).toBe('image');
    expect(byName.get('bge-m3:latest')).toMatchObject({ kind: 'embedding', capabilities: ['embedding'] });
    expect(byName.get('mistral:7b')).toMatchObject({ kind: 'llm', capabilities: ['completion'], digest: '' });
    expect(record.loaded[0]?.digest).toBe(meta['llama3.2:3b'].digest);
  });

  it('keeps the previous metadata when the agent omits it (unchanged since last sent)', () => {
    const previous = nodeFromHeartbeat(withMeta(meta), { now: T0 });

    const record = nodeFromHeartbeat(withMeta(null), { previous, now: T0 + 5_000 });

    expect(record.models).toEqual(previous.models);
  });

  it('infers capabilities for models missing from metadata that was sent', () => {
    const previous = nodeFromHeartbeat(withMeta(meta), { now: T0 });

    const record = nodeFromHeartbeat(withMeta({}), { previous, now: T0 + 5_000 });

    expect(record.models.find((model) => model.name === 'llama3.2:3b')?.capabilities).toEqual(['completion']);
  });

  it('converts on-disk sizes from decimal GB and keeps a previous size when none is sent', () => {
    const previous = makeNodeRecord({
      id: 'studio',
      models: [makeNodeModel({ name: 'mistral:7b', size: 4_100_000_000 })],
    });
    const ollama = {
      ...makeHeartbeat().ollama,
      models_loaded: [],
      models_available: ['mistral:7b', 'qwen3:32b'],
      models_available_sizes: { 'qwen3:32b': 20.2 },
      models_available_meta: null,
    };

    const record = nodeFromHeartbeat(makeHeartbeat({ ollama }), { previous, now: T0 });

    expect(record.models.map((model) => [model.name, model.size])).toEqual([
      ['mistral:7b', 4_100_000_000],
      ['qwen3:32b', 20_200_000_000],
    ]);
  });

  it('does not read prototype keys as model sizes', () => {
    const ollama = { ...makeHeartbeat().ollama, models_loaded: [], models_available: ['constructor'] };

    expect(nodeFromHeartbeat(makeHeartbeat({ ollama }), { now: T0 }).models[0]?.size).toBe(0);
  });
});

describe('nodeFromHeartbeat recentlyUnloaded', () => {
  it('stamps models that left the loaded set, drops entries older than an hour, and forgets reloaded ones', () => {
    const now = T0 + 3_600_000;
    const previous = makeNodeRecord({
      id: 'studio',
      loaded: [makeLoadedModel({ name: 'a:1b' }), makeLoadedModel({ name: 'b:1b' })],
      recentlyUnloaded: { 'c:1b': now - 600_000, 'd:1b': now - 3_600_001, 'e:1b': now - 1_000 },
    });
    const ollama = {
      ...makeHeartbeat().ollama,
      models_loaded: [
        { name: 'b:1b', size_gb: 1 },
        { name: 'e:1b', size_gb: 1 },
      ],
    };

    const record = nodeFromHeartbeat(makeHeartbeat({ ollama }), { previous, now });

    expect(record.recentlyUnloaded).toEqual({ 'a:1b': now, 'c:1b': now - 600_000 });
  });

  it('starts empty without a previous record', () => {
    expect(nodeFromHeartbeat(makeHeartbeat(), { now: T0 }).recentlyUnloaded).toEqual({});
  });
});

describe('nodeFromHeartbeat sidecars', () => {
  it('builds the image, transcription and text-embedding sidecars on the node host', () => {
    const heartbeat = makeHeartbeat({
      image: {
        models_available: [{ name: 'z-image-turbo', binary: 'mflux-generate-z-image-turbo' }],
        generating: true,
      },
      image_port: 11436,
      transcription: { models_available: [{ name: 'qwen3-asr', binary: 'mlx-qwen3-asr' }], transcribing: false },
      transcription_port: 11437,
      text_embedding: {
        models_available: [
          { name: 'nomic-embed-text', dimensions: 768, cached: true, kind: null },
          { name: 'bge-reranker-base', dimensions: 0, cached: true, kind: 'rerank' },
        ],
        processing: false,
      },
      text_embedding_port: 11439,
    });

    const record = nodeFromHeartbeat(heartbeat, { now: T0, peerIp: '10.0.0.5' });

    expect(record.sidecars).toEqual({
      image: {
        port: 11436,
        url: 'http://10.0.0.5:11436',
        models: [{ name: 'z-image-turbo', kind: 'image', binary: 'mflux-generate-z-image-turbo' }],
        busy: true,
      },
      transcription: {
        port: 11437,
        url: 'http://10.0.0.5:11437',
        models: [{ name: 'qwen3-asr', kind: 'transcription', binary: 'mlx-qwen3-asr' }],
        busy: false,
      },
      textEmbedding: {
        port: 11439,
        url: 'http://10.0.0.5:11439',
        models: [
          { name: 'nomic-embed-text', kind: 'embedding', dimensions: 768 },
          { name: 'bge-reranker-base', kind: 'rerank', dimensions: 0 },
        ],
        busy: false,
      },
    });
  });

  it('has no sidecar when the port is 0 or the sidecar serves no model', () => {
    const heartbeat = makeHeartbeat({
      image: { models_available: [{ name: 'flux-dev', binary: 'mflux-generate' }], generating: false },
      image_port: 0,
      transcription: { models_available: [], transcribing: false },
      transcription_port: 11437,
    });

    expect(nodeFromHeartbeat(heartbeat, { now: T0 }).sidecars).toEqual({});
  });

  it('uses the loopback host for a local agent', () => {
    const heartbeat = makeHeartbeat({
      image: { models_available: [{ name: 'flux-dev', binary: 'mflux-generate' }], generating: false },
      image_port: 11436,
    });

    expect(nodeFromHeartbeat(heartbeat, { now: T0, peerIp: '::1' }).sidecars.image?.url).toBe('http://127.0.0.1:11436');
  });
});

describe('resolveAgentUrl', () => {
  it.each([
    [
      'a loopback peer',
      { ollama_host: 'http://10.0.0.5:11500', lan_ip: '10.0.0.5' },
      '127.0.0.1',
      'http://127.0.0.1:11500',
    ],
    ['an IPv6 loopback peer', { ollama_host: null, lan_ip: '10.0.0.5' }, '::1', 'http://127.0.0.1:11434'],
    ['a mapped IPv4 loopback peer', { lan_ip: '10.0.0.5' }, '::ffff:127.0.0.1', 'http://127.0.0.1:11434'],
    [
      'the LAN address',
      { ollama_host: 'http://localhost:11500', lan_ip: '10.0.0.7' },
      '10.0.0.99',
      'http://10.0.0.7:11500',
    ],
    ['an IPv6 LAN address', { lan_ip: 'fd00::5' }, '10.0.0.99', 'http://[fd00::5]:11434'],
    [
      'ollama_host when lan_ip is loopback',
      { ollama_host: 'http://gpu.lan:11434', lan_ip: '127.0.0.1' },
      '10.0.0.9',
      'http://gpu.lan:11434',
    ],
    [
      'ollama_host when lan_ip is empty',
      { ollama_host: 'http://10.0.0.8:11434/', lan_ip: '' },
      undefined,
      'http://10.0.0.8:11434',
    ],
    ['ollama_host without a scheme', { ollama_host: '10.0.0.8:11434' }, undefined, 'http://10.0.0.8:11434'],
    [
      'the peer when ollama_host is local',
      { ollama_host: 'http://0.0.0.0:11434', lan_ip: '' },
      '10.0.0.9',
      'http://10.0.0.9:11434',
    ],
    [
      'ollama_host as sent when nothing better is known',
      { ollama_host: 'http://localhost:11434' },
      undefined,
      'http://localhost:11434',
    ],
    ['the default port on loopback when nothing is sent', {}, undefined, 'http://127.0.0.1:11434'],
  ])('uses %s', (_case, payload, peerIp, expected) => {
    expect(resolveAgentUrl(payload, peerIp)).toBe(expected);
  });
});

describe('drainNode', () => {
  it('marks the node draining and keeps everything else', () => {
    const previous = makeNodeRecord({ id: 'studio', lastSeenAt: T0 - 3_000 });

    expect(drainNode(previous, T0)).toEqual({ ...previous, draining: true, lastSeenAt: T0 });
  });
});
