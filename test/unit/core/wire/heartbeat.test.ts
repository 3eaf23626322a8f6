import { describe, expect, it } from '@jest/globals';
import { heartbeatSchema, isDrainHeartbeat, parseHeartbeat } from '../../../../lib/core/wire/heartbeat';
import { makeHeartbeat } from '../../../helpers/factories';

/** A heartbeat as it arrives: JSON text parsed back, so nothing but JSON values. */
function wire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function failureOf(body: unknown): { field: string; message: string } {
  const result = parseHeartbeat(body);
  if (result.ok) throw new Error('expected the heartbeat to be rejected');
  return { field: result.field, message: result.message };
}

describe('parseHeartbeat', () => {
  it('accepts a full heartbeat as herd-node sends it', () => {
    const result = parseHeartbeat(wire(makeHeartbeat()));

    expect(result.ok).toBe(true);
    if (!result.ok || isDrainHeartbeat(result.value)) throw new Error('expected a full heartbeat');
    expect(result.value.node_id).toBe('studio');
    expect(result.value.memory.pressure).toBe('normal');
    expect(result.value.ollama.models_loaded[0]?.size_gb).toBe(3.18);
  });

  it('accepts the nulls real agents send', () => {
    const body = wire(
      makeHeartbeat({
        image: null,
        transcription: null,
        text_embedding: null,
        disk: null,
        thermal: { state: 'unknown', temperature_c: null },
        capacity: null,
      }),
    );

    expect(parseHeartbeat(body).ok).toBe(true);
  });

  it('keeps unknown fields at every level', () => {
    const heartbeat = makeHeartbeat({ mlx_servers: [], vision_embedding_status: { backend_available: false } });
    const body = wire({ ...heartbeat, ollama: { ...heartbeat.ollama, future_field: 1 } });

    const result = parseHeartbeat(body);

    if (!result.ok || isDrainHeartbeat(result.value)) throw new Error('expected a full heartbeat');
    expect(result.value).toMatchObject({ mlx_servers: [], ollama: { future_field: 1 } });
  });

  it('defaults memory pressure to normal when absent or null', () => {
    const heartbeat = makeHeartbeat();
    const { pressure: _ignored, ...memory } = heartbeat.memory;

    for (const body of [
      { ...heartbeat, memory },
      { ...heartbeat, memory: { ...memory, pressure: null } },
    ]) {
      const result = parseHeartbeat(wire(body));
      if (!result.ok || isDrainHeartbeat(result.value)) throw new Error('expected a full heartbeat');
      expect(result.value.memory.pressure).toBe('normal');
    }
  });

  it('defaults the Ollama model lists to empty, like the reference agent', () => {
    const result = parseHeartbeat(wire(makeHeartbeat({ ollama: {} as never })));

    if (!result.ok || isDrainHeartbeat(result.value)) throw new Error('expected a full heartbeat');
    expect(result.value.ollama.models_loaded).toEqual([]);
    expect(result.value.ollama.models_available).toEqual([]);
  });

  it('accepts the drain message on its own', () => {
    const result = parseHeartbeat({ node_id: 'studio', draining: true });

    expect(result).toEqual({ ok: true, value: { node_id: 'studio', draining: true } });
    if (!result.ok) throw new Error('expected success');
    expect(isDrainHeartbeat(result.value)).toBe(true);
  });

  it('treats a full heartbeat with draining true as a full heartbeat', () => {
    const result = parseHeartbeat(wire(makeHeartbeat({ draining: true })));

    if (!result.ok) throw new Error('expected success');
    expect(isDrainHeartbeat(result.value)).toBe(false);
    expect(result.value.draining).toBe(true);
  });

  it('names node_id when it is missing, in either form', () => {
    const { node_id: _ignored, ...withoutId } = makeHeartbeat();

    expect(failureOf(wire(withoutId)).field).toBe('node_id');
    expect(failureOf({ draining: true }).field).toBe('node_id');
    expect(failureOf(wire({ ...withoutId, node_id: '  ' })).field).toBe('node_id');
  });

  it.each([
    [
      'memory.total_gb',
      (h: Record<string, unknown>) => ({ ...h, memory: { total_gb: '192', used_gb: 1, available_gb: 1 } }),
    ],
    [
      'memory.used_gb',
      (h: Record<string, unknown>) => ({ ...h, memory: { total_gb: 192, used_gb: -1, available_gb: 1 } }),
    ],
    [
      'memory.pressure',
      (h: Record<string, unknown>) => ({
        ...h,
        memory: { total_gb: 1, used_gb: 1, available_gb: 1, pressure: 'high' },
      }),
    ],
    ['cpu', (h: Record<string, unknown>) => ({ ...h, cpu: undefined })],
    [
      'cpu.cores_physical',
      (h: Record<string, unknown>) => ({ ...h, cpu: { cores_physical: 2.5, utilization_pct: 1 } }),
    ],
    ['ollama', (h: Record<string, unknown>) => ({ ...h, ollama: 'none' })],
    [
      'ollama.models_loaded.0.size_gb',
      (h: Record<string, unknown>) => ({ ...h, ollama: { models_loaded: [{ name: 'a:1b' }] } }),
    ],
    [
      'ollama.models_available.1',
      (h: Record<string, unknown>) => ({ ...h, ollama: { models_available: ['a:1b', 7] } }),
    ],
    ['image_port', (h: Record<string, unknown>) => ({ ...h, image_port: 70000 })],
    [
      'thermal.temperature_c',
      (h: Record<string, unknown>) => ({ ...h, thermal: { state: 'nominal', temperature_c: 'hot' } }),
    ],
    [
      'text_embedding.models_available.0.name',
      (h: Record<string, unknown>) => ({ ...h, text_embedding: { models_available: [{ dimensions: 768 }] } }),
    ],
  ])('names %s when it is wrong', (field, change) => {
    const body = wire(change(makeHeartbeat()));

    expect(failureOf(body).field).toBe(field);
  });

  it('rejects numbers that are not finite', () => {
    const failure = failureOf({
      ...makeHeartbeat(),
      cpu: { cores_physical: 4, utilization_pct: Number.POSITIVE_INFINITY },
    });

    expect(failure.field).toBe('cpu.utilization_pct');
  });

  it('names the body when it is not an object', () => {
    expect(failureOf(null).field).toBe('body');
    expect(failureOf([1, 2]).field).toBe('body');
    expect(failureOf('heartbeat').message).not.toBe('');
  });

  it('rejects draining:false without metrics (that is not a drain message)', () => {
    expect(failureOf({ node_id: 'studio', draining: false }).field).toBe('cpu');
  });
});

describe('heartbeatSchema', () => {
  it('accepts both forms', () => {
    expect(heartbeatSchema.safeParse({ node_id: 'a', draining: true }).success).toBe(true);
    expect(heartbeatSchema.safeParse(wire(makeHeartbeat())).success).toBe(true);
    expect(heartbeatSchema.safeParse({ node_id: 'a' }).success).toBe(false);
  });
});
