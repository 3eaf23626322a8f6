import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import type { ModelPlacement, NodeHardware } from '../../../../lib/core/fleet/node';
import { breakdownPoints, scoreCandidate } from '../../../../lib/core/scoring/score';
import {
  contextFit,
  delayPoints,
  expectedLoad,
  expectedPrefill,
  expectedWait,
  memoryFit,
  prefillMs,
  prefillSlowdown,
  queueDepth,
  roleAffinity,
  sessionAffinity,
  slotWaitMs,
  thermal,
} from '../../../../lib/core/scoring/signals';
import {
  agentNode,
  GB,
  GIB,
  makeLoadedModel,
  makeNodeRecord,
  signalInput,
  T0,
  viewOf,
} from '../../../helpers/factories';

const loadedNode = agentNode({ loaded: [makeLoadedModel({ contextLength: 8192 })] });

describe('thermal', () => {
  it('gives 50 to a loaded model', () => {
    expect(thermal(signalInput(loadedNode))).toEqual({ points: 50, reason: 'model is loaded' });
  });

  it('gives 30 to a model unloaded within the last 30 minutes', () => {
    const record = agentNode({ recentlyUnloaded: { 'llama3.2:3b': T0 - 1_800_000 } });
    expect(thermal(signalInput(record))).toEqual({ points: 30, reason: 'model was unloaded recently' });
  });

  it('gives 10 to a model on disk, or unloaded longer ago', () => {
    const record = agentNode({ recentlyUnloaded: { 'llama3.2:3b': T0 - 1_800_001 } });
    expect(thermal(signalInput(record))).toEqual({ points: 10, reason: 'model is on disk' });
    expect(thermal(signalInput())).toEqual({ points: 10, reason: 'model is on disk' });
  });

  it('ignores an unload record of another model', () => {
    const record = agentNode({ recentlyUnloaded: { 'qwen3:8b': T0 - 1000 } });
    expect(thermal(signalInput(record)).points).toBe(10);
  });

  it('gives 10 to a model served by a sidecar', () => {
    const node = viewOf(agentNode());
    const placement: ModelPlacement = {
      node,
      kind: 'embedding',
      backend: 'text-embedding',
      sidecarModel: { name: 'bge-m3', kind: 'embedding' },
    };
    expect(thermal(signalInput(agentNode(), { placement }))).toEqual({
      points: 10,
      reason: 'model is served by a sidecar',
    });
  });
});

describe('memoryFit', () => {
  const fitting = (resident: number) => memoryFit(signalInput(agentNode(), { resident }));

  it('gives 20 to a loaded model', () => {
    expect(memoryFit(signalInput(loadedNode))).toEqual({ points: 20, reason: 'model is loaded' });
  });

  it('steps down as free memory over the model real size shrinks', () => {
    // 32 GiB free.
    expect(fitting(10 * GIB)).toEqual({ points: 20, reason: 'free memory over 2× the model' });
    expect(fitting(20 * GIB)).toEqual({ points: 15, reason: 'free memory over 1.5× the model' });
    expect(fitting(25 * GIB)).toEqual({ points: 8, reason: 'free memory over 1.2× the model' });
    expect(fitting(32 * GIB)).toEqual({ points: 3, reason: 'free memory barely holds the model' });
    expect(fitting(33 * GIB)).toEqual({ points: 0, reason: 'model does not fit in free memory' });
  });

  it('gives 0 when the node reports no memory or the size is unknown', () => {
    expect(memoryFit(signalInput(makeNodeRecord({ loaded: [] })))).toEqual({
      points: 0,
      reason: 'node reports no memory',
    });
    expect(fitting(0)).toEqual({ points: 0, reason: 'model size unknown' });
  });
});

describe('queueDepth', () => {
  const penalty = (depth: number, limit: number) => queueDepth(signalInput(agentNode(), { depth, limit }));

  it('costs nothing on an empty queue', () => {
    expect(penalty(0, 1)).toEqual({ points: 0, reason: 'queue is empty' });
  });

  it('costs 6 per request queued or running per slot', () => {
    expect(penalty(2, 1)).toEqual({ points: -12, reason: 'requests queued or running, per slot' });
    expect(penalty(2, 4).points).toBe(-3);
  });

  it('costs at most 30', () => {
    expect(penalty(10, 1).points).toBe(-30);
  });
});

describe('slotWaitMs', () => {
  it('is nothing while a slot is free or before latency was observed', () => {
    expect(slotWaitMs(0, 1, 5000)).toBe(0);
    expect(slotWaitMs(1, 2, 5000)).toBe(0);
    expect(slotWaitMs(3, 1, undefined)).toBe(0);
  });

  it('is the requests ahead beyond the free slots, each slot turning over once per observed p75', () => {
    expect(slotWaitMs(3, 1, 2000)).toBe(6000);
    expect(slotWaitMs(5, 2, 4000)).toBe(8000);
  });

  it('follows the recent waits per place in line when they are longer than the turnover says (a burst)', () => {
    // Four slots, three waiting: the newcomer is fourth in line.
    expect(slotWaitMs(7, 4, 2000)).toBe(2000);
    expect(slotWaitMs(7, 4, 2000, 1500)).toBe(6000);
    expect(slotWaitMs(7, 4, 2000, 100)).toBe(2000);
    expect(slotWaitMs(7, 4, undefined, 1500)).toBe(6000);
    expect(slotWaitMs(3, 4, 2000, 1500)).toBe(0);
  });
});

describe('prefillMs', () => {
  it('is the prompt at the rate, slowed by the sharing of a busy GPU', () => {
    expect(prefillMs(1000, 500, 0)).toBe(2000);
    expect(prefillMs(1000, 500, prefillSlowdown(2, 4))).toBe(2500);
    expect(prefillSlowdown(8, 4)).toBe(0.5);
    expect(prefillMs(0, 500, 0)).toBe(0);
  });
});

describe('delayPoints and the time-to-first-token signals', () => {
  it('costs 20 points per second, at most 600, for each part', () => {
    expect(delayPoints(0)).toBe(0);
    expect(delayPoints(1500)).toBe(-30);
    expect(delayPoints(3_600_000)).toBe(-600);
  });

  it('explains each part of the expected time to first token', () => {
    const ttft = { waitMs: 2000, loadMs: 0, prefillMs: 500 };
    const input = signalInput(agentNode(), { ttft });
    expect(expectedWait(input)).toEqual({
      points: -40,
      reason: 'seconds until a slot frees, from observed p75 and recent waits in line',
    });
    expect(expectedLoad(input)).toEqual({ points: 0, reason: 'model is loaded' });
    expect(expectedPrefill(input).points).toBe(-10);
    expect(expectedPrefill(signalInput(agentNode())).reason).toBe('prompt size not estimated');
  });
});

describe('roleAffinity', () => {
  const role = (hardware: NodeHardware, resident: number) =>
    roleAffinity(signalInput(agentNode({ hardware }), { resident }));

  it('sends large models to fast nodes', () => {
    expect(role({ memoryBandwidthGbps: 800 }, 40 * GB)).toEqual({ points: 25, reason: 'large model on a fast node' });
    expect(role({ memoryBandwidthGbps: 200 }, 40 * GB).points).toBe(10);
  });

  it('sends small models to slower nodes', () => {
    expect(role({ memoryBandwidthGbps: 800 }, 2 * GB)).toEqual({
      points: 3,
      reason: 'small model: slower nodes preferred',
    });
    expect(role({ memoryBandwidthGbps: 200 }, 2 * GB).points).toBe(12);
  });

  it('gives mid-size models 0.6 of the bandwidth bonus', () => {
    expect(role({ memoryBandwidthGbps: 800 }, 10 * GB)).toEqual({ points: 15, reason: 'mid-size model' });
  });

  it('falls back on total memory when bandwidth is unknown', () => {
    expect(role({ memoryTotalGb: 192 }, 40 * GB)).toEqual({ points: 15, reason: 'large model on a big node' });
    expect(role({ memoryTotalGb: 64 }, 40 * GB).points).toBe(5);
    expect(role({ memoryTotalGb: 16 }, 40 * GB).points).toBe(0);
    expect(role({ memoryTotalGb: 16 }, 2 * GB)).toEqual({ points: 15, reason: 'small model on a small node' });
    expect(role({ memoryTotalGb: 64 }, 2 * GB).points).toBe(8);
    expect(role({ memoryTotalGb: 192 }, 2 * GB)).toEqual({ points: 3, reason: 'small model on a big node' });
    expect(role({ memoryTotalGb: 64 }, 10 * GB)).toEqual({ points: 5, reason: 'mid-size model' });
  });

  it('reads total memory from the memory report when the hardware does not say', () => {
    expect(role({}, 40 * GB).points).toBe(5);
  });

  it('gives 0 when the model or the node size is unknown', () => {
    expect(role({ memoryBandwidthGbps: 800 }, 0)).toEqual({ points: 0, reason: 'model size unknown' });
    expect(roleAffinity(signalInput(makeNodeRecord({ loaded: [] }), { resident: GB }))).toEqual({
      points: 0,
      reason: 'node size unknown',
    });
  });
});

describe('contextFit', () => {
  const windowFor = (promptTokens?: number) => contextFit(signalInput(loadedNode, { promptTokens }));

  it('gives 0 without a prompt estimate or a loaded window', () => {
    expect(windowFor()).toEqual({ points: 0, reason: 'prompt size not estimated' });
    expect(contextFit(signalInput(agentNode(), { promptTokens: 100 }))).toEqual({
      points: 0,
      reason: 'context window is set when the model loads',
    });
  });

  it('costs 15 when the prompt exceeds the loaded window', () => {
    expect(windowFor(10_000)).toEqual({ points: -15, reason: 'prompt exceeds the loaded context' });
  });

  it('rewards room in the loaded window', () => {
    expect(windowFor(6000)).toEqual({ points: 3, reason: 'loaded context under 1.5× the prompt' });
    expect(windowFor(4000).points).toBe(7.5);
    expect(windowFor(2000).points).toBe(12);
    expect(windowFor(1000)).toEqual({ points: 15, reason: 'loaded context is roomy' });
  });
});

describe('sessionAffinity', () => {
  const bonus = (depth: number, pinned = true) => sessionAffinity(signalInput(agentNode(), { depth, pinned })).points;

  it('gives nothing to a node the conversation is not pinned to', () => {
    expect(sessionAffinity(signalInput())).toEqual({ points: 0, reason: 'conversation not pinned here' });
  });

  it('gives 20 to the pinned node while it is idle, half at depth 2, under a quarter at depth 8', () => {
    expect(sessionAffinity(signalInput(agentNode(), { pinned: true }))).toEqual({
      points: 20,
      reason: 'conversation pinned here',
    });
    expect(bonus(2)).toBe(10);
    expect(bonus(8)).toBeLessThan(5);
  });

  it('shrinks as the pinned node queue grows, and stays above 0', () => {
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), (depth) => {
        expect(bonus(depth + 1)).toBeLessThan(bonus(depth));
        expect(bonus(depth + 1)).toBeGreaterThan(0);
      }),
    );
  });

  it('scales with the chance the node still holds the conversation, to nothing once it surely does not', () => {
    const held = (chance: number, depth = 0) =>
      sessionAffinity(signalInput(agentNode(), { depth, pinned: true, held: chance }));
    expect(held(1)).toEqual({ points: 20, reason: 'conversation pinned here' });
    expect(held(0.5).points).toBe(10);
    expect(held(0.5, 2).points).toBe(5);
    expect(held(0)).toEqual({
      points: 0,
      reason: 'conversation pinned here, shrunk by the chance its prompt is still cached and by queue depth',
    });
  });
});

describe('scoreCandidate', () => {
  it('adds every signal and lists them in a fixed order', () => {
    const input = signalInput(loadedNode, { depth: 3, limit: 1, p75Ms: 1500, promptTokens: 3000, pinned: true });
    const { total, breakdown } = scoreCandidate(input);
    const sum = Object.values(breakdown).reduce((points, signal) => points + signal.points, 0);
    expect(total).toBeCloseTo(sum, 10);
    expect(Object.keys(breakdown)).toEqual([
      'thermal',
      'memory_fit',
      'queue_depth',
      'expected_wait',
      'expected_load',
      'expected_prefill',
      'role_affinity',
      'context_fit',
      'session_affinity',
    ]);
  });

  it('keeps the points of every signal, in the same order, for a trace', () => {
    const input = signalInput(loadedNode, { depth: 3, limit: 1, p75Ms: 1500, promptTokens: 3000, pinned: true });
    const { breakdown } = scoreCandidate(input);
    const points = breakdownPoints(breakdown);
    expect(Object.keys(points)).toEqual(Object.keys(breakdown));
    for (const [name, signal] of Object.entries(breakdown))
      expect(points[name as keyof typeof points]).toBe(signal.points);
  });
});
