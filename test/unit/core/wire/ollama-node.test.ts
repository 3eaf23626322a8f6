import { describe, expect, it } from '@jest/globals';
import {
  parseOllamaPs,
  parseOllamaShow,
  parseOllamaTags,
  parseOllamaVersion,
} from '../../../../lib/core/wire/ollama-node';

const TAGS = {
  models: [
    {
      name: 'llama3.2:3b',
      model: 'llama3.2:3b',
      modified_at: '2024-12-01T10:00:00.123456789-08:00',
      size: 2019393189,
      digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
      details: {
        parent_model: '',
        format: 'gguf',
        family: 'llama',
        families: null,
        parameter_size: '3.2B',
        quantization_level: 'Q4_K_M',
      },
      capabilities: ['completion', 'tools'],
      remote_host: null,
    },
  ],
};

describe('parseOllamaTags', () => {
  it('accepts a real /api/tags body, nulls and extra fields included', () => {
    const result = parseOllamaTags(TAGS);

    if (!result.ok) throw new Error(result.message);
    expect(result.value.models?.[0]?.details?.families).toBeNull();
    expect(result.value.models?.[0]).toMatchObject({ remote_host: null });
  });

  it('accepts an empty or null model list', () => {
    expect(parseOllamaTags({ models: [] }).ok).toBe(true);
    expect(parseOllamaTags({ models: null }).ok).toBe(true);
    expect(parseOllamaTags({}).ok).toBe(true);
  });

  it('returns the failing field instead of throwing', () => {
    expect(parseOllamaTags({ models: [{ size: 1 }] })).toEqual({
      ok: false,
      field: 'models.0.name',
      message: expect.any(String),
    });
    expect(parseOllamaTags('<html>')).toMatchObject({ ok: false, field: 'body' });
  });
});

describe('parseOllamaPs', () => {
  it('accepts a real /api/ps body', () => {
    const result = parseOllamaPs({
      models: [
        {
          name: 'llama3.2:3b',
          model: 'llama3.2:3b',
          size: 3414155264,
          digest: 'a80c4f17acd5',
          details: { format: 'gguf', family: 'llama' },
          expires_at: '2025-01-01T00:05:00.000000000Z',
          size_vram: 3414155264,
          context_length: 8192,
        },
      ],
    });

    if (!result.ok) throw new Error(result.message);
    expect(result.value.models?.[0]?.size_vram).toBe(3414155264);
  });

  it('rejects a size that is not a number', () => {
    expect(parseOllamaPs({ models: [{ name: 'a', size: '1' }] })).toMatchObject({ ok: false, field: 'models.0.size' });
  });
});

describe('parseOllamaVersion', () => {
  it('reads the version and rejects a body without one', () => {
    expect(parseOllamaVersion({ version: '0.12.6' })).toEqual({ ok: true, value: { version: '0.12.6' } });
    expect(parseOllamaVersion({})).toMatchObject({ ok: false, field: 'version' });
  });
});

describe('parseOllamaShow', () => {
  it('keeps capabilities, model_info and details', () => {
    const result = parseOllamaShow({
      modelfile: '# Modelfile',
      capabilities: ['completion', 'vision'],
      model_info: { 'general.architecture': 'gemma3', 'gemma3.context_length': 131072 },
      details: { family: 'gemma3' },
    });

    if (!result.ok) throw new Error(result.message);
    expect(result.value.capabilities).toEqual(['completion', 'vision']);
    expect(result.value.model_info?.['gemma3.context_length']).toBe(131072);
  });
});
