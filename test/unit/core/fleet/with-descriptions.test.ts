import { describe, expect, it } from '@jest/globals';
import { undescribedModels, withDescriptions } from '../../../../lib/core/fleet/with-descriptions';
import { makeNodeModel, makeNodeRecord } from '../../../helpers/factories';

describe('withDescriptions', () => {
  const record = makeNodeRecord({
    models: [
      makeNodeModel({ name: 'gemma3:12b', capabilities: ['completion'], kind: 'llm' }),
      makeNodeModel({ name: 'qwen3:8b', capabilities: ['completion', 'tools'], described: true, contextLength: 40960 }),
      makeNodeModel({ name: 'mystery:latest', capabilities: ['completion'], kind: 'llm' }),
    ],
  });

  it('names the models whose capabilities are guesses', () => {
    expect(undescribedModels(record)).toEqual(['gemma3:12b', 'mystery:latest']);
  });

  it("replaces a guess with the runtime's capabilities, kind and context length", () => {
    const described = withDescriptions(
      record,
      new Map([
        ['gemma3:12b', { capabilities: ['completion', 'vision'], contextLength: 131072 }],
        ['mystery:latest', { capabilities: ['embedding'] }],
      ]),
    );

    expect(described.models[0]).toEqual(
      expect.objectContaining({
        capabilities: ['completion', 'vision'],
        contextLength: 131072,
        described: true,
        kind: 'llm',
      }),
    );
    expect(described.models[2]).toEqual(
      expect.objectContaining({ capabilities: ['embedding'], kind: 'embedding', described: true }),
    );
    expect(described.models[1]).toBe(record.models[1]);
    expect(undescribedModels(described)).toEqual([]);
  });

  it('returns the record unchanged when nothing was described', () => {
    expect(withDescriptions(record, new Map())).toBe(record);
  });

  it("fills the details a heartbeat did not carry from the runtime's, keeping what the node reported", () => {
    const agent = makeNodeRecord({
      source: 'agent',
      models: [makeNodeModel({ name: 'qwen3:8b', details: { parameter_size: '8.2B', format: '' } })],
    });
    const show = {
      capabilities: ['completion', 'tools'],
      details: { parent_model: '', format: 'gguf', family: 'qwen3', families: ['qwen3'], parameter_size: '8B' },
    };

    const described = withDescriptions(agent, new Map([['qwen3:8b', show]]));

    expect(described.models[0]?.details).toEqual({
      parent_model: '',
      format: 'gguf',
      family: 'qwen3',
      families: ['qwen3'],
      parameter_size: '8.2B',
    });
  });
});
