/**
 * Fixtures for the routing tests: a snapshot from node records at T0, a routing request with defaults,
 * queue depths from a plain table, a signal input for one node, and a manual timer for queue time-outs.
 * Sizes are bytes and memory is GiB, as the domain model keeps them.
 */
import type { ModelPlacement, NodeRecord, NodeView } from '../../../../lib/core/fleet/node';
import { buildSnapshot } from '../../../../lib/core/fleet/snapshot';
import type { QueueDepths } from '../../../../lib/core/scoring/load-signals';
import type { RoutingRequest } from '../../../../lib/core/scoring/routing-request';
import type { SignalInput } from '../../../../lib/core/scoring/signals';
import type { Schedule } from '../../../../lib/services/dispatch/queue-manager';
import { makeNodeRecord, T0 } from '../../../helpers/factories';

export const GIB = 2 ** 30;
export const GB = 1e9;
export const THRESHOLDS = { degradedAfterMs: 15_000, offlineAfterMs: 30_000 };

export function snapshotOf(records: readonly NodeRecord[], now = T0) {
  return buildSnapshot(records, now, THRESHOLDS);
}

export function makeRequest(overrides: Partial<RoutingRequest> = {}): RoutingRequest {
  return { model: 'llama3.2:3b', fallbackModels: [], kind: 'chat', needsVision: false, ...overrides };
}

/** An agent node with memory and the model on disk, not loaded. */
export function agentNode(overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({
    source: 'agent',
    memory: { totalGb: 64, usedGb: 32, availableGb: 32, pressure: 'normal' },
    hardware: { memoryTotalGb: 64 },
    loaded: [],
    ...overrides,
  });
}

/** Queue depths from `{ 'node:model': depth }`. */
export function depthsOf(table: Readonly<Record<string, number>> = {}): QueueDepths {
  const entries = Object.entries(table).map(([key, depth]) => {
    const colon = key.indexOf(':');
    return { nodeId: key.slice(0, colon), model: key.slice(colon + 1), depth };
  });
  return {
    depth: (nodeId, model) => entries.find((entry) => entry.nodeId === nodeId && entry.model === model)?.depth ?? 0,
    forEachBusy(model, visit) {
      for (const entry of entries) if (entry.model === model && entry.depth > 0) visit(entry.nodeId, entry.depth);
    },
  };
}

export const idle = depthsOf();

/** The placement of `model` on the node (the record's first on-disk model by default). */
export function placementOf(node: NodeView, model = node.models[0]?.name ?? ''): ModelPlacement {
  const onDisk = node.models.find((entry) => entry.name === model);
  const loaded = node.loaded.find((entry) => entry.name === model);
  return {
    node,
    kind: onDisk?.kind ?? 'llm',
    backend: 'ollama',
    ...(onDisk !== undefined ? { model: onDisk } : {}),
    ...(loaded !== undefined ? { loaded } : {}),
  };
}

export function viewOf(record: NodeRecord, status: NodeView['status'] = 'online'): NodeView {
  return { ...record, status };
}

/** A signal input for the record's first model, idle and unpinned, at T0. */
export function signalInput(record: NodeRecord = agentNode(), overrides: Partial<SignalInput> = {}): SignalInput {
  const node = viewOf(record);
  const placement = placementOf(node);
  return {
    node,
    placement,
    model: placement.model?.name ?? '',
    resident: placement.loaded?.size ?? placement.model?.size ?? 0,
    depth: 0,
    limit: 1,
    p75Ms: undefined,
    promptTokens: undefined,
    pinned: false,
    now: T0,
    ...overrides,
  };
}

/** Timers that fire only when the test moves the clock. */
export function manualTimers() {
  let now = T0;
  const timers: { at: number; callback: () => void; cancelled: boolean }[] = [];
  const schedule: Schedule = (callback, ms) => {
    const timer = { at: now + ms, callback, cancelled: false };
    timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  return {
    schedule,
    clock: () => now,
    advance(ms: number) {
      now += ms;
      for (const timer of timers) {
        if (!timer.cancelled && timer.at <= now) {
          timer.cancelled = true;
          timer.callback();
        }
      }
    },
  };
}
