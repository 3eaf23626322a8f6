import { describe, expect, it } from '@jest/globals';
import type { ModelPlacement } from '../../../../lib/core/fleet/node';
import { describeElimination, eliminate, isPermanentElimination } from '../../../../lib/core/scoring/eliminate';
import { observedResidentBytes, residentBytes } from '../../../../lib/core/scoring/resident-size';
import {
  agentNode,
  GIB,
  makeLoadedModel,
  makeNodeModel,
  makeNodeRecord,
  makeRequest,
  placementOf,
  viewOf,
} from '../../../helpers/factories';

const chat = makeRequest();
const size = 5 * GIB;

function placement(record = agentNode(), status: 'online' | 'degraded' | 'offline' = 'online'): ModelPlacement {
  return placementOf(viewOf(record, status));
}

describe('eliminate', () => {
  it('keeps a healthy node that has room for the model', () => {
    expect(eliminate(placement(), chat, size)).toBeUndefined();
  });

  it('eliminates an offline node', () => {
    expect(eliminate(placement(agentNode(), 'offline'), chat, size)).toBe('offline');
  });

  it('keeps a degraded node (still routable)', () => {
    expect(eliminate(placement(agentNode(), 'degraded'), chat, size)).toBeUndefined();
  });

  it('eliminates a draining node', () => {
    expect(eliminate(placement(agentNode({ draining: true })), chat, size)).toBe('draining');
  });

  it('eliminates a node under critical memory pressure, even with the model loaded', () => {
    const record = agentNode({
      memory: { totalGb: 64, usedGb: 63, availableGb: 1, pressure: 'critical' },
      loaded: [makeLoadedModel()],
    });
    expect(eliminate(placement(record), chat, size)).toBe('memory-critical');
  });

  it('keeps a node under warning memory pressure', () => {
    const record = agentNode({ memory: { totalGb: 64, usedGb: 50, availableGb: 14, pressure: 'warn' } });
    expect(eliminate(placement(record), chat, size)).toBeUndefined();
  });

  it('eliminates a model of the wrong kind for the work', () => {
    const embedder = makeNodeModel({ name: 'nomic-embed-text:latest', kind: 'embedding', capabilities: ['embedding'] });
    const record = agentNode({ models: [embedder] });
    expect(eliminate(placement(record), chat, size)).toBe('wrong-kind');
    expect(eliminate(placement(record), makeRequest({ kind: 'embedding' }), size)).toBeUndefined();
  });

  it('sends a request with images only to a model with the vision capability', () => {
    const blind = agentNode();
    const seeing = agentNode({ models: [makeNodeModel({ capabilities: ['completion', 'vision'], described: true })] });
    const vision = makeRequest({ needsVision: true });
    expect(eliminate(placement(blind), vision, size)).toBe('no-vision');
    expect(eliminate(placement(seeing), vision, size)).toBeUndefined();
  });

  it('treats a sidecar model as blind', () => {
    const node = viewOf(agentNode());
    const sidecar: ModelPlacement = {
      node,
      kind: 'llm',
      backend: 'text-embedding',
      sidecarModel: { name: 'x', kind: 'llm' },
    };
    expect(eliminate(sidecar, makeRequest({ needsVision: true }), 0)).toBe('no-vision');
  });

  it('rules out tools only when the node described the model without them', () => {
    const described = agentNode({ models: [makeNodeModel({ capabilities: ['completion'], described: true })] });
    const inferred = agentNode({ models: [makeNodeModel({ capabilities: ['completion'] })] });
    const tools = makeRequest({ needsTools: true });
    expect(eliminate(placement(described), tools, size)).toBe('no-tools');
    expect(eliminate(placement(inferred), tools, size)).toBeUndefined();
  });

  it('eliminates a node whose free memory is below the model real size', () => {
    const record = agentNode({ memory: { totalGb: 16, usedGb: 12, availableGb: 4, pressure: 'normal' } });
    expect(eliminate(placement(record), chat, 4 * GIB + 1)).toBe('does-not-fit');
    expect(eliminate(placement(record), chat, 4 * GIB)).toBeUndefined();
  });

  it('counts the memory of the other loaded models as room, since Ollama unloads idle ones for a load', () => {
    const other = makeLoadedModel({ name: 'other:7b', size: 6 * GIB });
    const full = agentNode({
      loaded: [other],
      memory: { totalGb: 16, usedGb: 14, availableGb: 2, pressure: 'normal' },
    });
    expect(eliminate(placement(full), chat, 8 * GIB)).toBeUndefined();
    expect(eliminate(placement(full), chat, 8 * GIB + 1)).toBe('does-not-fit');
  });

  it('never eliminates for fit when the model is already loaded there', () => {
    const record = agentNode({
      memory: { totalGb: 16, usedGb: 15, availableGb: 1, pressure: 'normal' },
      loaded: [makeLoadedModel()],
    });
    expect(eliminate(placement(record), chat, 40 * GIB)).toBeUndefined();
  });

  it('never eliminates a polled node for fit: it reports no memory', () => {
    const polled = makeNodeRecord({ loaded: [] });
    expect(polled.memory).toBeUndefined();
    expect(eliminate(placement(polled), chat, 400 * GIB)).toBeUndefined();
  });

  it('never guesses a size: an unknown size (0) eliminates nothing', () => {
    const record = agentNode({ memory: { totalGb: 16, usedGb: 15.5, availableGb: 0.5, pressure: 'normal' } });
    expect(eliminate(placement(record), chat, 0)).toBeUndefined();
  });

  it('names each reason and tells the permanent ones apart', () => {
    expect(describeElimination('does-not-fit')).toBe(
      'model does not fit in free memory, even with the other models unloaded',
    );
    expect(isPermanentElimination('no-vision')).toBe(true);
    expect(isPermanentElimination('wrong-kind')).toBe(true);
    expect(isPermanentElimination('no-tools')).toBe(true);
    expect(isPermanentElimination('does-not-fit')).toBe(false);
    expect(isPermanentElimination('offline')).toBe(false);
  });
});

describe('residentBytes', () => {
  const onDisk = 2_019_393_189;

  it('is what the node reports when the model is loaded there', () => {
    const loaded = placement(agentNode({ loaded: [makeLoadedModel({ size: 3 * GIB })] }));
    expect(residentBytes(loaded, 9 * GIB)).toBe(3 * GIB);
  });

  it('is the smallest resident size seen elsewhere, never below the size on disk', () => {
    const cold = placement();
    expect(residentBytes(cold, 3 * GIB)).toBe(3 * GIB);
    expect(residentBytes(cold, 1000)).toBe(onDisk);
  });

  it('is the size on disk when nobody has it loaded, and 0 when nobody said', () => {
    expect(residentBytes(placement(), 0)).toBe(onDisk);
    expect(residentBytes(placement(agentNode({ models: [makeNodeModel({ size: 0 })] })), 0)).toBe(0);
  });

  it('observes the smallest loaded size among placements', () => {
    const placements = [
      placement(agentNode({ id: 'a', loaded: [makeLoadedModel({ size: 6 * GIB })] })),
      placement(agentNode({ id: 'b' })),
      placement(agentNode({ id: 'c', loaded: [makeLoadedModel({ size: 4 * GIB })] })),
    ];
    expect(observedResidentBytes(placements)).toBe(4 * GIB);
    expect(observedResidentBytes([placement()])).toBe(0);
  });
});
