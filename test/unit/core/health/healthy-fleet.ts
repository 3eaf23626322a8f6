/**
 * One healthy fleet with traffic, for the health checks' tests: three agent nodes online with room to
 * spare, one Ollama and one agent version, chat and embedding models on every node, image and
 * speech-to-text sidecars on two each, 24 h of traffic that completes (one cold load, no errors), idle
 * queues, a table that writes. Every check must find nothing in it; each check's test changes one thing
 * (`inputsWith`) and sees it fire.
 */
import { type RollupTrace, rollupOf, traceIncrements } from '../../../../lib/core/analytics/rollup';
import type { NodeRecord, Sidecar } from '../../../../lib/core/fleet/node';
import type { HealthInputs, ScopedRollup } from '../../../../lib/core/health/health-inputs';
import {
  makeLoadedModel,
  makeNodeModel,
  makeNodeRecord,
  makeQueueState,
  snapshotOf,
  T0,
} from '../../../helpers/factories';

export const NOW = T0;
export const HOUR = 3_600_000;
export const CHAT = 'llama3.2:3b';
export const EMBED = 'nomic-embed-text:latest';
export const IMAGE = 'x/flux2-klein:latest';
export const STT = 'whisper-large-v3';

/** A trace with the node and model it ran on (what the rollups are keyed by). */
export interface FleetTrace extends RollupTrace {
  readonly nodeId: string;
  readonly model: string;
}

const sidecar = (port: number, name: string, kind: 'image' | 'transcription'): Sidecar => ({
  port,
  url: `http://host:${port}`,
  models: [{ name, kind }],
  busy: false,
});

export function healthyNode(id: string, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({
    id,
    source: 'agent',
    url: `http://${id}:11434`,
    version: '0.12.6',
    agentVersion: '0.6.1',
    lastSeenAt: NOW,
    memory: { totalGb: 64, usedGb: 32, availableGb: 32, pressure: 'normal' },
    cpu: { coresPhysical: 16, utilizationPct: 40 },
    thermal: { state: 'nominal', temperatureC: 50 },
    disk: { totalGb: 1000, usedGb: 500, availableGb: 500 },
    models: [
      makeNodeModel({ name: CHAT }),
      makeNodeModel({ name: EMBED, kind: 'embedding', size: 274_302_450, capabilities: ['embedding'] }),
    ],
    loaded: [makeLoadedModel({ name: CHAT, contextLength: 8192 })],
    numParallel: 2,
    sidecars: {},
    ...overrides,
  });
}

export const HEALTHY_RECORDS: readonly NodeRecord[] = [
  healthyNode('gpu1', { sidecars: { image: sidecar(8090, IMAGE, 'image') } }),
  healthyNode('gpu2', {
    sidecars: { image: sidecar(8090, IMAGE, 'image'), transcription: sidecar(8091, STT, 'transcription') },
  }),
  healthyNode('gpu3', { sidecars: { transcription: sidecar(8091, STT, 'transcription') } }),
];

function trace(fields: Partial<FleetTrace> & Pick<FleetTrace, 'startedAt' | 'nodeId'>): FleetTrace {
  return {
    style: 'openai-chat',
    model: CHAT,
    status: 'completed',
    latencyMs: 2000,
    timeToFirstTokenMs: 300,
    promptTokens: 500,
    completionTokens: 200,
    retries: 0,
    ...fields,
  };
}

/** Hour `h` (0 = 24 h ago, 23 = the last hour) starts here. */
export const hourStart = (h: number) => NOW - (24 - h) * HOUR;

/** 24 h of traffic: per hour and node 10 chats and 2 embeddings; an image and a transcription an hour. */
export function healthyTraces(): FleetTrace[] {
  const traces: FleetTrace[] = [];
  for (let h = 0; h < 24; h += 1) {
    for (const nodeId of ['gpu1', 'gpu2', 'gpu3']) {
      for (let i = 0; i < 10; i += 1) traces.push(trace({ startedAt: hourStart(h) + i * 1000, nodeId }));
      for (let i = 0; i < 2; i += 1) {
        traces.push(
          trace({
            startedAt: hourStart(h) + 20_000 + i,
            nodeId,
            style: 'embeddings',
            model: EMBED,
            latencyMs: 40,
            completionTokens: 0,
            promptTokens: 30,
          }),
        );
      }
    }
    const media = { latencyMs: 8000, promptTokens: 0, completionTokens: 0 } as const;
    traces.push(
      trace({
        startedAt: hourStart(h) + 30_000,
        nodeId: h % 2 === 0 ? 'gpu1' : 'gpu2',
        style: 'image',
        model: IMAGE,
        ...media,
      }),
    );
    traces.push(
      trace({
        startedAt: hourStart(h) + 31_000,
        nodeId: h % 2 === 0 ? 'gpu2' : 'gpu3',
        style: 'transcription',
        model: STT,
        ...media,
      }),
    );
  }
  // The first request of the day found the chat model unloaded: one cold load is part of a healthy day.
  traces[0] = { ...(traces[0] as FleetTrace), loadMs: 4000, timeToFirstTokenMs: 4300, latencyMs: 6000 };
  return traces;
}

function rollupsBy(traces: readonly FleetTrace[], scope: (trace: FleetTrace) => string | undefined, byStyle = false) {
  const groups = new Map<string, { startMs: number; key: string | undefined; attributes: Record<string, number> }>();
  for (const entry of traces) {
    const startMs = entry.startedAt - (((entry.startedAt % HOUR) + HOUR) % HOUR);
    const key = scope(entry);
    const id = `${startMs}|${key ?? ''}`;
    const group = groups.get(id) ?? { startMs, key, attributes: {} };
    const { counters, maxima } = traceIncrements(entry, { byStyle });
    for (const [name, value] of Object.entries(counters))
      group.attributes[name] = (group.attributes[name] ?? 0) + value;
    for (const [name, value] of Object.entries(maxima)) {
      group.attributes[name] = Math.max(group.attributes[name] ?? Number.NEGATIVE_INFINITY, value);
    }
    groups.set(id, group);
  }
  return [...groups.values()].map(({ startMs, key, attributes }) => ({ startMs, key, rollup: rollupOf(attributes) }));
}

/** The hourly rollups the recorder would have written for these traces. */
export function trafficOf(traces: readonly FleetTrace[]): HealthInputs['traffic'] {
  const rows = (kind: 'nodeId' | 'model'): ScopedRollup[] =>
    rollupsBy(traces, (entry) => entry[kind]).map(({ startMs, key, rollup }) => ({ startMs, [kind]: key, rollup }));
  return {
    fleetHours: rollupsBy(traces, () => undefined, true).map(({ startMs, rollup }) => ({ startMs, rollup })),
    nodeHours: rows('nodeId'),
    modelHours: rows('model'),
  };
}

export interface FleetChanges extends Partial<Omit<HealthInputs, 'snapshot' | 'traffic'>> {
  readonly records?: readonly NodeRecord[];
  readonly traces?: readonly FleetTrace[];
}

/** The healthy fleet's inputs with some of them changed. */
export function inputsWith(changes: FleetChanges = {}): HealthInputs {
  const { records = HEALTHY_RECORDS, traces = healthyTraces(), ...rest } = changes;
  return {
    now: NOW,
    snapshot: snapshotOf(records, NOW),
    freshness: { ageMs: 400, refreshFailed: false },
    ejections: [],
    queues: ['gpu1', 'gpu2', 'gpu3'].map((nodeId) =>
      makeQueueState({ nodeId, model: CHAT, inFlight: 1, concurrency: 2, completed: 240 }),
    ),
    queueCountsSpanMs: 300_000,
    traffic: trafficOf(traces),
    trafficReadFailed: false,
    config: {
      modelMap: new Map([
        ['claude-sonnet-4', CHAT],
        ['default', CHAT],
      ]),
      autoRoute: false,
      imageGeneration: true,
      transcription: true,
    },
    writes: { failedFlushes: 0, rejected: 0, pending: 3, spanMs: 300_000, scope: 'this instance' },
    routerVersion: '0.1.0',
    ...rest,
  };
}

/** The healthy records with one node changed. */
export function recordsWith(id: string, change: (record: NodeRecord) => NodeRecord): NodeRecord[] {
  return HEALTHY_RECORDS.map((record) => (record.id === id ? change(record) : record));
}
