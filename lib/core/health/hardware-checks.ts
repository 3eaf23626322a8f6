/**
 * Health checks on the nodes' machines (issue 22 item 3): memory pressure, heat, disk, memory no work
 * uses while others work, and KV caches taking a large share of a node's memory. Offline nodes are
 * skipped (their figures are old). Silent on nodes with room to spare. Pure.
 */
import type { NodeView } from '../fleet/node';
import { finding, type HealthChecks } from './health-finding';
import { sumsBy } from './health-inputs';
import { firstReason, noLiveNodeThat, noNodes, noTraffic } from './skip-reasons';

/** Disk: warning below this share free (or below `DISK_LOW_GB`), critical below a third of it. */
export const DISK_LOW_SHARE = 0.1;
export const DISK_LOW_GB = 10;
/** Memory unused by work: more than this share free, ≤ 2 models loaded, no request in 24 h while others had. */
export const IDLE_MEMORY_SHARE = 0.5;
/** Requests the fleet must have served in 24 h for an idle node to stand out. */
export const IDLE_FLEET_REQUESTS = 100;
/** KV caches (loaded size − size on disk) over this share of the node's memory: warning. */
export const KV_SHARE_WARNING = 0.3;
export const KV_SHARE_CRITICAL = 0.5;

const live = (nodes: readonly NodeView[]) => nodes.filter((node) => node.status !== 'offline');
const GB = 1024 ** 3;
const round1 = (value: number) => Math.round(value * 10) / 10;

/** Thermal states that mean the machine slows itself down (macOS `serious`/`critical`). */
const HOT_STATES: Readonly<Record<string, 'warning' | 'critical'>> = {
  serious: 'warning',
  critical: 'critical',
};

export const HARDWARE_CHECKS: HealthChecks = {
  memory_pressure: {
    title: 'Memory pressure on nodes',
    severity: 'critical',
    skip: noLiveNodeThat('reports its memory', (node) => node.memory !== undefined),
    run: ({ snapshot }) =>
      live(snapshot.nodes).flatMap((node) =>
        node.memory === undefined || node.memory.pressure === 'normal'
          ? []
          : [
              finding('memory_pressure', {
                severity: node.memory.pressure === 'critical' ? 'critical' : 'warning',
                title: `${node.id} is under ${node.memory.pressure} memory pressure`,
                description: `${node.id} has ${round1(node.memory.availableGb)} GB of ${round1(node.memory.totalGb)} GB free; the OS may swap or kill the runner.`,
                fix: 'Load fewer or smaller models there, lower the context length or OLLAMA_NUM_PARALLEL, or use a quantised KV cache (OLLAMA_KV_CACHE_TYPE=q8_0).',
                nodeId: node.id,
                data: {
                  pressure: node.memory.pressure,
                  available_gb: node.memory.availableGb,
                  total_gb: node.memory.totalGb,
                },
              }),
            ],
      ),
  },
  thermal_throttling: {
    title: 'Nodes running hot',
    severity: 'critical',
    skip: noLiveNodeThat('reports its thermal state', (node) => node.thermal !== undefined),
    run: ({ snapshot }) =>
      live(snapshot.nodes).flatMap((node) => {
        const severity = node.thermal === undefined ? undefined : HOT_STATES[node.thermal.state.toLowerCase()];
        if (node.thermal === undefined || severity === undefined) return [];
        return [
          finding('thermal_throttling', {
            severity,
            title: `${node.id} is running hot (${node.thermal.state})`,
            description: `${node.id} reports thermal state ${node.thermal.state}: it slows its processors down, so generation gets slower.`,
            fix: 'Improve cooling or airflow, or move load to other nodes.',
            nodeId: node.id,
            data: { state: node.thermal.state, temperature_c: node.thermal.temperatureC ?? null },
          }),
        ];
      }),
  },
  disk_low: {
    title: 'Disk space on nodes',
    severity: 'critical',
    skip: noLiveNodeThat('reports its disk', (node) => node.disk !== undefined),
    run: ({ snapshot }) =>
      live(snapshot.nodes).flatMap((node) => {
        const disk = node.disk;
        if (disk === undefined || disk.totalGb <= 0) return [];
        const share = disk.availableGb / disk.totalGb;
        if (share >= DISK_LOW_SHARE && disk.availableGb >= DISK_LOW_GB) return [];
        const critical = share < DISK_LOW_SHARE / 3 || disk.availableGb < DISK_LOW_GB / 3;
        return [
          finding('disk_low', {
            severity: critical ? 'critical' : 'warning',
            title: `${node.id} is low on disk`,
            description: `${node.id} has ${round1(disk.availableGb)} GB of ${round1(disk.totalGb)} GB free: a model pull may fail.`,
            fix: 'Delete models not used for a while (see model management) or free space on the disk.',
            nodeId: node.id,
            data: { available_gb: disk.availableGb, total_gb: disk.totalGb },
          }),
        ];
      }),
  },
  underutilized_memory: {
    title: 'Nodes with memory and no work',
    severity: 'info',
    skip: firstReason(noTraffic, noNodes),
    run: ({ snapshot, traffic, now }) => {
      const perNode = sumsBy(traffic.nodeHours, (row) => row.nodeId, now);
      let fleetRequests = 0;
      for (const sums of perNode.values()) fleetRequests += sums.day.counters.requests;
      if (fleetRequests < IDLE_FLEET_REQUESTS) return [];
      return snapshot.nodes.flatMap((node) => {
        const memory = node.memory;
        const requests = perNode.get(node.id)?.day.counters.requests ?? 0;
        if (node.status !== 'online' || node.draining || memory === undefined || memory.totalGb <= 0) return [];
        if (requests > 0 || node.loaded.length > 2 || memory.availableGb / memory.totalGb <= IDLE_MEMORY_SHARE)
          return [];
        return [
          finding('underutilized_memory', {
            severity: 'info',
            title: `${node.id} served nothing in 24 h`,
            description: `${node.id} has ${round1(memory.availableGb)} GB free and served no request in 24 h while the fleet served ${fleetRequests}.`,
            fix: 'Pull the fleet’s most requested models onto it (see recommendations) so routing can use it.',
            nodeId: node.id,
            data: { available_gb: memory.availableGb, total_gb: memory.totalGb, fleet_requests_24h: fleetRequests },
          }),
        ];
      });
    },
  },
  kv_cache_heavy: {
    title: 'Memory held by KV caches',
    severity: 'critical',
    skip: noLiveNodeThat('reports its memory', (node) => node.memory !== undefined),
    run: ({ snapshot }) =>
      live(snapshot.nodes).flatMap((node) => {
        const totalGb = node.memory?.totalGb;
        if (totalGb === undefined || totalGb <= 0) return [];
        const onDisk = new Map(node.models.map((model) => [model.name, model.size]));
        let kvBytes = 0;
        for (const loaded of node.loaded) {
          const size = onDisk.get(loaded.name);
          if (size !== undefined && size > 0 && loaded.size > size) kvBytes += loaded.size - size;
        }
        const share = kvBytes / GB / totalGb;
        if (share <= KV_SHARE_WARNING) return [];
        return [
          finding('kv_cache_heavy', {
            severity: share > KV_SHARE_CRITICAL ? 'critical' : 'warning',
            title: `KV caches take ${Math.round(share * 100)} % of ${node.id}'s memory`,
            description: `The loaded models' context caches on ${node.id} hold ${round1(kvBytes / GB)} GB beyond their weights.`,
            fix: 'Lower the context length the models load with, set OLLAMA_NUM_PARALLEL lower, or use OLLAMA_KV_CACHE_TYPE=q8_0.',
            nodeId: node.id,
            data: { kv_gb: round1(kvBytes / GB), total_gb: totalGb, share_pct: Math.round(share * 100) },
          }),
        ];
      }),
  },
};
