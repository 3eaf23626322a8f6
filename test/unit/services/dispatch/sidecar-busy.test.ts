/**
 * The `thermal` signal for sidecar models: a sidecar its agent reports busy (`generating`,
 * `transcribing`, `processing`) scores below an idle one, so the least busy image-capable node wins
 * even when another router instance sent the work its queue does not count.
 */
import { describe, expect, it } from '@jest/globals';
import type { ModelPlacement, NodeRecord, NodeSidecars, Sidecar } from '../../../../lib/core/fleet/node';
import { rankNodes } from '../../../../lib/core/scoring/rank-nodes';
import { thermal } from '../../../../lib/core/scoring/signals';
import { agentNode, idle, makeRequest, signalInput, snapshotOf, T0, viewOf } from '../../../helpers/factories';

function sidecar(models: Sidecar['models'], busy: boolean): Sidecar {
  return { port: 8090, url: 'http://10.0.0.5:8090', models, busy };
}

const IMAGE_MODEL = { name: 'z-image-turbo', kind: 'image', binary: 'mflux-generate-z-image-turbo' } as const;

function imageNode(id: string, busy: boolean): NodeRecord {
  return agentNode({ id, models: [], loaded: [], sidecars: { image: sidecar([IMAGE_MODEL], busy) } });
}

function sidecarThermal(sidecars: NodeSidecars, backend: ModelPlacement['backend']) {
  const record = agentNode({ sidecars });
  const model = backend === 'image' ? IMAGE_MODEL : { name: 'sidecar-model', kind: 'embedding' as const };
  const placement: ModelPlacement = { node: viewOf(record), kind: model.kind, backend, sidecarModel: model };
  return thermal(signalInput(record, { placement, model: model.name }));
}

describe('thermal for a sidecar model', () => {
  it('gives 10 to an idle sidecar and −20 to a busy one', () => {
    expect(sidecarThermal({ image: sidecar([IMAGE_MODEL], false) }, 'image')).toEqual({
      points: 10,
      reason: 'model is served by a sidecar',
    });
    expect(sidecarThermal({ image: sidecar([IMAGE_MODEL], true) }, 'image')).toEqual({
      points: -20,
      reason: 'model is served by a busy sidecar',
    });
  });

  it.each([
    ['transcription', { transcription: sidecar([], true) }],
    ['text-embedding', { textEmbedding: sidecar([], true) }],
  ] as const)('reads the busy flag of the %s sidecar', (backend, sidecars) => {
    expect(sidecarThermal(sidecars, backend).points).toBe(-20);
  });

  it("ignores another sidecar's busy flag", () => {
    const sidecars = { image: sidecar([IMAGE_MODEL], false), transcription: sidecar([], true) };
    expect(sidecarThermal(sidecars, 'image').points).toBe(10);
  });
});

describe('rankNodes for image models', () => {
  const request = makeRequest({ model: 'z-image-turbo', kind: 'image' });

  it('puts the idle sidecar first, whatever the node ids say', () => {
    const snapshot = snapshotOf([imageNode('a-busy', true), imageNode('b-idle', false)]);

    const ranking = rankNodes(snapshot, request, { now: T0, queues: idle });

    expect(ranking.ranked.map((candidate) => candidate.node.id)).toEqual(['b-idle', 'a-busy']);
    expect(ranking.ranked[1]?.breakdown.thermal.reason).toBe('model is served by a busy sidecar');
  });

  it('ties idle sidecars on the node id', () => {
    const snapshot = snapshotOf([imageNode('b', false), imageNode('a', false)]);

    const ranking = rankNodes(snapshot, request, { now: T0, queues: idle });

    expect(ranking.ranked.map((candidate) => candidate.node.id)).toEqual(['a', 'b']);
  });
});
