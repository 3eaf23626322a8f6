import { describe, expect, it } from '@jest/globals';
import { toApiPs } from '../../../../lib/core/views/api-ps';
import { makeLoadedModel, makeNodeModel, makeNodeRecord, T0 } from '../../../helpers/factories';
import { LLAMA_DETAILS, smallFleet } from '../../../helpers/small-fleet';

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
          details: { parameter_size: '32.8B' },
          // The agent said nothing of expiry: Ollama's default keep-alive after its last heartbeat.
          expires_at: new Date(T0 - 2_500 + 5 * 60_000).toISOString(),
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

  it("gives a node agent's loaded model an RFC 3339 expiry 5 minutes after the node's last report", () => {
    const agent = makeNodeRecord({
      id: 'studio',
      source: 'agent',
      lastSeenAt: T0 - 4_000,
      loaded: [makeLoadedModel({ expiresAt: '' })],
    });

    const [entry] = toApiPs(smallFleet([agent])).models;

    expect(entry?.expires_at).toBe('2025-01-01T00:04:56.000Z');
    expect(Number.isNaN(Date.parse(entry?.expires_at ?? ''))).toBe(false);
  });

  it("keeps a listed node's own expiry as it sent it", () => {
    const listed = makeNodeRecord({ loaded: [makeLoadedModel({ expiresAt: '2025-01-01T01:00:00.123456789+01:00' })] });

    expect(toApiPs(smallFleet([listed])).models[0]?.expires_at).toBe('2025-01-01T01:00:00.123456789+01:00');
  });

  it('replaces an expiry the node sent that is no time with the default', () => {
    const listed = makeNodeRecord({ lastSeenAt: T0, loaded: [makeLoadedModel({ expiresAt: 'soon' })] });

    expect(toApiPs(smallFleet([listed])).models[0]?.expires_at).toBe('2025-01-01T00:05:00.000Z');
  });

  it('fills details from the on-disk entry and leaves out what no one reported, never an empty string', () => {
    const agent = makeNodeRecord({
      source: 'agent',
      models: [
        makeNodeModel({
          digest: '',
          details: { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '' },
        }),
      ],
      loaded: [makeLoadedModel({ digest: '', details: { parameter_size: '3.2B', quantization_level: '' } })],
    });

    const [entry] = toApiPs(smallFleet([agent])).models;

    expect(entry).not.toHaveProperty('digest');
    expect(entry?.details).toEqual({
      parent_model: '',
      format: 'gguf',
      family: 'llama',
      families: ['llama'],
      parameter_size: '3.2B',
    });
  });
});
