/** A small fleet snapshot for the pull tests: records built with the shared factories, liveness at T0. */
import type { FleetSnapshot, NodeMemory, NodeRecord } from '../../../../lib/core/fleet/node';
import { buildSnapshot } from '../../../../lib/core/fleet/snapshot';
import { makeNodeRecord, T0 } from '../../../helpers/factories';

export function memory(availableGb: number): NodeMemory {
  return { totalGb: 192, usedGb: 192 - availableGb, availableGb, pressure: 'normal' };
}

/** An agent node seen at T0 with `availableGb` free and no models. */
export function agentNode(id: string, availableGb: number, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({
    id,
    source: 'agent',
    url: `http://${id}:11434`,
    lastSeenAt: T0,
    memory: memory(availableGb),
    models: [],
    loaded: [],
    ...overrides,
  });
}

/** A polled node seen at T0: Ollama reports no memory. */
export function listedNode(id: string, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({ id, url: `http://${id}:11434`, lastSeenAt: T0, models: [], loaded: [], ...overrides });
}

export function snapshotOf(...records: NodeRecord[]): FleetSnapshot {
  return buildSnapshot(records, T0, { degradedAfterMs: 15_000, offlineAfterMs: 30_000 });
}
