import { describe, expect, it } from '@jest/globals';
import { toApiPs } from '../../../../lib/fleet/views/api-ps';
import { makeLoadedModel, makeNodeRecord } from '../../../helpers/factories';
import { LLAMA_DETAILS, smallFleet } from './small-fleet';

const LLAMA_DIGEST = 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72';

describe('toApiPs', () => {
  it('lists each loaded model per online or degraded node, latest expiry first', () => {
    expect(toApiPs(smallFleet())).toEqual({
      models: [
        {
          name: 'llama3.2:3b',
          model: 'llama3.2:3b',
          size: 3_414_155_264,
          size_vram: 3_414_155_264,
          digest: LLAMA_DIGEST,
          details: LLAMA_DETAILS,
          expires_at: '2025-01-01T00:10:00Z',
          context_length: 4096,
          fleet_node: 'gpu2',
        },
        {
          name: 'llama3.2:3b',
          model: 'llama3.2:3b',
          size: 3_414_155_264,
          size_vram: 3_414_155_264,
          digest: LLAMA_DIGEST,
          details: { format: 'gguf', family: 'llama', parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
          expires_at: '2025-01-01T00:05:00Z',
          context_length: 8192,
          fleet_node: 'gpu1',
        },
        {
          name: 'qwen3:32b',
          model: 'qwen3:32b',
          size: 21_474_836_480,
          size_vram: 21_474_836_480,
          digest: '',
          details: { parameter_size: '32.8B' },
          expires_at: '',
          context_length: 8192,
          fleet_node: 'studio',
        },
      ],
    });
  });

  it('orders equal expiry by node id and leaves out an unknown context length', () => {
    const loaded = makeLoadedModel({ expiresAt: '2025-01-01T00:05:00Z' });
    const { contextLength: _ignored, ...withoutContext } = loaded;
    const snapshot = smallFleet([
      makeNodeRecord({ id: 'b', loaded: [withoutContext] }),
      makeNodeRecord({ id: 'a', loaded: [loaded] }),
    ]);

    const models = toApiPs(snapshot).models;

    expect(models.map((entry) => entry.fleet_node)).toEqual(['a', 'b']);
    expect(models[1]).not.toHaveProperty('context_length');
  });
});
