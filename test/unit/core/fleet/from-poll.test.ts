import { describe, expect, it } from '@jest/globals';
import { nodeFromPoll, pollFailed, type ShowInfo, showInfoFromResponse } from '../../../../lib/core/fleet/from-poll';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import type { OllamaPsResponse, OllamaTagsResponse } from '../../../../lib/core/wire/ollama-node';
import { makeLoadedModel, makeNodeRecord, T0 } from '../../../helpers/factories';

const LLAMA_DETAILS = {
  parent_model: '',
  format: 'gguf',
  family: 'llama',
  families: ['llama'],
  parameter_size: '3.2B',
  quantization_level: 'Q4_K_M',
};

const TAGS: OllamaTagsResponse = {
  models: [
    {
      name: 'qwen3:8b',
      model: 'qwen3:8b',
      modified_at: '2024-11-02T08:00:00Z',
      size: 5_225_388_164,
      digest: '500a1f067a9f',
      details: { format: 'gguf', family: 'qwen3' },
      capabilities: ['completion', 'tools', 'thinking'],
    },
    {
      name: 'llama3.2:3b',
      model: 'llama3.2:3b',
      modified_at: '2024-12-01T10:00:00Z',
      size: 2_019_393_189,
      digest: 'a80c4f17acd5',
      details: LLAMA_DETAILS,
    },
    { name: 'nomic-embed-text:latest', size: 274_302_450 },
    { name: 'x/flux2-klein:latest', size: 5_700_000_000, details: null },
  ],
};

const PS: OllamaPsResponse = {
  models: [
    {
      name: 'llama3.2:3b',
      model: 'llama3.2:3b',
      size: 3_414_155_264,
      size_vram: 2_000_000_000,
      digest: 'a80c4f17acd5',
      details: LLAMA_DETAILS,
      expires_at: '2025-01-01T00:05:00Z',
      context_length: 8192,
    },
  ],
};

const SHOWS = new Map<string, ShowInfo>([
  ['llama3.2:3b', { capabilities: ['completion', 'tools'], contextLength: 131072, architecture: 'llama' }],
  ['x/flux2-klein:latest', { capabilities: ['image'] }],
]);

describe('nodeFromPoll', () => {
  it('maps tags, ps, version and show info to a listed record', () => {
    const record = nodeFromPoll({
      id: 'gpu1',
      url: 'http://10.0.0.5:11434',
      tags: TAGS,
      ps: PS,
      version: '0.12.6',
      shows: SHOWS,
      now: T0,
    });

    const expected: NodeRecord = {
      id: 'gpu1',
      source: 'listed',
      url: 'http://10.0.0.5:11434',
      version: '0.12.6',
      firstSeenAt: T0,
      lastSeenAt: T0,
      draining: false,
      hardware: {},
      models: [
        {
          name: 'llama3.2:3b',
          kind: 'llm',
          size: 2_019_393_189,
          digest: 'a80c4f17acd5',
          modifiedAt: '2024-12-01T10:00:00Z',
          details: LLAMA_DETAILS,
          capabilities: ['completion', 'tools'],
          contextLength: 131072,
          described: true,
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
          name: 'qwen3:8b',
          kind: 'llm',
          size: 5_225_388_164,
          digest: '500a1f067a9f',
          modifiedAt: '2024-11-02T08:00:00Z',
          details: { format: 'gguf', family: 'qwen3' },
          capabilities: ['completion', 'tools', 'thinking'],
          described: true,
        },
        {
          name: 'x/flux2-klein:latest',
          kind: 'image',
          size: 5_700_000_000,
          digest: '',
          modifiedAt: '',
          details: {},
          capabilities: ['image'],
          described: true,
        },
      ],
      loaded: [
        {
          name: 'llama3.2:3b',
          size: 3_414_155_264,
          sizeVram: 2_000_000_000,
          expiresAt: '2025-01-01T00:05:00Z',
          contextLength: 8192,
          digest: 'a80c4f17acd5',
          details: LLAMA_DETAILS,
        },
      ],
      recentlyUnloaded: {},
      requestsActive: 0,
      numParallel: 1,
      sidecars: {},
    };
    expect(record).toEqual(expected);
    expect(record).not.toHaveProperty('memory');
  });

  it('prefers capabilities from /api/tags over the cached show info', () => {
    const shows = new Map<string, ShowInfo>([['qwen3:8b', { capabilities: ['embedding'] }]]);

    const record = nodeFromPoll({ id: 'gpu1', url: 'http://h:11434', tags: TAGS, ps: {}, shows, now: T0 });

    expect(record.models.find((model) => model.name === 'qwen3:8b')?.kind).toBe('llm');
  });

  it('keeps firstSeenAt, numParallel and version from the previous record and clears the last error', () => {
    const previous = makeNodeRecord({
      firstSeenAt: T0 - 500_000,
      numParallel: 4,
      version: '0.12.5',
      lastErrorAt: T0 - 1_000,
      lastError: 'timeout',
      lastErrorWords: 'did not answer in time',
    });

    const record = nodeFromPoll({
      id: 'gpu1',
      url: 'http://h:11434',
      tags: TAGS,
      ps: PS,
      shows: SHOWS,
      previous,
      now: T0,
    });

    expect(record).toMatchObject({ firstSeenAt: T0 - 500_000, numParallel: 4, version: '0.12.5', lastSeenAt: T0 });
    expect(record).not.toHaveProperty('lastError');
    expect(record).not.toHaveProperty('lastErrorWords');
  });

  it('diffs recentlyUnloaded against the previous poll', () => {
    const previous = makeNodeRecord({
      loaded: [makeLoadedModel({ name: 'qwen3:8b' }), makeLoadedModel({ name: 'llama3.2:3b' })],
      recentlyUnloaded: { 'llama3.2:3b': T0 - 60_000, 'old:1b': T0 - 3_600_001 },
    });

    const record = nodeFromPoll({
      id: 'gpu1',
      url: 'http://h:11434',
      tags: TAGS,
      ps: PS,
      shows: SHOWS,
      previous,
      now: T0,
    });

    expect(record.recentlyUnloaded).toEqual({ 'qwen3:8b': T0 });
  });

  it('accepts null model lists', () => {
    const record = nodeFromPoll({
      id: 'gpu1',
      url: 'http://h:11434',
      tags: { models: null },
      ps: { models: null },
      shows: new Map(),
      now: T0,
    });

    expect(record.models).toEqual([]);
    expect(record.loaded).toEqual([]);
  });
});

describe('pollFailed', () => {
  it('keeps everything, records the error and does not move lastSeenAt', () => {
    const previous = makeNodeRecord({ lastSeenAt: T0 - 4_000 });

    const failure = { detail: 'connect ECONNREFUSED 10.0.0.5:11434', words: 'refused the connection' };

    expect(pollFailed(previous, failure, T0)).toEqual({
      ...previous,
      lastErrorAt: T0,
      lastError: 'connect ECONNREFUSED 10.0.0.5:11434',
      lastErrorWords: 'refused the connection',
    });
  });
});

describe('showInfoFromResponse', () => {
  it('reads capabilities, architecture and the trained context length', () => {
    const info = showInfoFromResponse({
      capabilities: ['completion', 'vision'],
      model_info: {
        'general.architecture': 'gemma3',
        'gemma3.context_length': 131072,
        'gemma3.embedding_length': 2560,
      },
    });

    expect(info).toEqual({ capabilities: ['completion', 'vision'], contextLength: 131072, architecture: 'gemma3' });
  });

  it('finds the context length without an architecture key', () => {
    expect(showInfoFromResponse({ model_info: { 'llama.context_length': 8192 } })).toEqual({
      capabilities: [],
      contextLength: 8192,
    });
  });

  it("keeps the answer's details (format, family, sizes) for models a heartbeat names without them", () => {
    const details = { format: 'gguf', family: 'qwen3', parameter_size: '8.2B' };

    expect(showInfoFromResponse({ capabilities: ['completion'], details })).toEqual({
      capabilities: ['completion'],
      details,
    });
  });

  it('leaves out what the answer does not say', () => {
    expect(showInfoFromResponse({})).toEqual({ capabilities: [] });
    expect(
      showInfoFromResponse({ model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 'big' } }),
    ).toEqual({ capabilities: [], architecture: 'qwen3' });
  });
});
