/**
 * A small fleet for the endpoint views at T0: gpu1 (listed, online), gpu2 (listed, degraded, last poll
 * failed), gpu3 (listed, offline) and studio (agent, online, with every sidecar).
 */
import type { NodeRecord } from '../../lib/core/fleet/node';
import { makeLoadedModel, makeNodeModel, makeNodeRecord, snapshotOf, T0 } from './factories';

export const LLAMA_DETAILS = {
  parent_model: '',
  format: 'gguf',
  family: 'llama',
  families: ['llama'],
  parameter_size: '3.2B',
  quantization_level: 'Q4_K_M',
};

export const gpu1 = makeNodeRecord({
  id: 'gpu1',
  url: 'http://10.0.0.5:11434',
  lastSeenAt: T0 - 1_000,
  numParallel: 2,
  requestsActive: 2,
  models: [
    // This node did not say much about llama: size, digest and time come from gpu2.
    makeNodeModel({ size: 0, digest: '', modifiedAt: '', details: {}, capabilities: ['completion'] }),
    makeNodeModel({
      name: 'nomic-embed-text:latest',
      kind: 'embedding',
      size: 274_302_450,
      digest: '0a109f422b47',
      modifiedAt: '2024-10-01T00:00:00Z',
      details: { format: 'gguf', family: 'nomic-bert' },
      capabilities: ['embedding'],
    }),
  ],
  loaded: [makeLoadedModel({ expiresAt: '2025-01-01T00:05:00Z', requestsActive: 2 })],
});

export const gpu2 = makeNodeRecord({
  id: 'gpu2',
  url: 'http://10.0.0.6:11434',
  lastSeenAt: T0 - 20_000,
  lastErrorAt: T0 - 2_000,
  lastError: 'timeout',
  models: [
    makeNodeModel({ modifiedAt: '2024-12-01T10:00:00Z', details: LLAMA_DETAILS }),
    makeNodeModel({
      name: 'x/flux2-klein:latest',
      kind: 'image',
      size: 5_700_000_000,
      digest: '8a0b2e4c1d3f',
      modifiedAt: '2025-01-01T00:00:00Z',
      details: { format: 'safetensors' },
      capabilities: ['image'],
    }),
  ],
  loaded: [makeLoadedModel({ expiresAt: '2025-01-01T00:10:00Z', contextLength: 4096, digest: '', details: {} })],
});

export const gpu3 = makeNodeRecord({
  id: 'gpu3',
  url: 'http://10.0.0.7:11434',
  lastSeenAt: T0 - 40_000,
  lastErrorAt: T0 - 1_000,
  lastError: 'connect ECONNREFUSED 10.0.0.7:11434',
  models: [makeNodeModel({ name: 'mistral:7b' })],
  loaded: [makeLoadedModel({ name: 'mistral:7b' })],
});

export const studio: NodeRecord = makeNodeRecord({
  id: 'studio',
  source: 'agent',
  url: 'http://10.0.0.9:11434',
  agentVersion: '0.9.2',
  lanIp: '10.0.0.9',
  firstSeenAt: T0 - 600_000,
  lastSeenAt: T0 - 2_500,
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
  requestsActive: 1,
  numParallel: 4,
  models: [
    makeNodeModel({
      name: 'qwen3:32b',
      size: 20_200_000_000,
      digest: '',
      modifiedAt: '',
      details: {},
      capabilities: ['completion'],
    }),
  ],
  loaded: [
    makeLoadedModel({
      name: 'qwen3:32b',
      size: 21_474_836_480,
      sizeVram: 21_474_836_480,
      expiresAt: '',
      digest: '',
      details: { parameter_size: '32.8B' },
      requestsActive: 1,
    }),
  ],
  sidecars: {
    image: {
      port: 11436,
      url: 'http://10.0.0.9:11436',
      models: [
        { name: 'z-image-turbo', kind: 'image', binary: 'mflux-generate-z-image-turbo' },
        { name: 'sd3-medium', kind: 'image', binary: 'diffusionkit-cli' },
      ],
      busy: true,
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
});

export function smallFleet(records: readonly NodeRecord[] = [studio, gpu3, gpu2, gpu1]) {
  return snapshotOf(records);
}
