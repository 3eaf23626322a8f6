/**
 * Health checks on models and their loading (issue 22 item 3): cold loads, a node that keeps reloading
 * with memory free (thrashing: keep-alive too short), loads that time out, the config's mapped models
 * missing or cold, the most requested models dropped, requests for models no node has, a kind of
 * request no node serves, and busy models on one node only. "Cold" fires only when a request in the
 * last hour paid a load and the model is cold again, never merely because an idle model unloaded. Pure.
 */
import type { ModelKind } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';
import { finding, type HealthChecks } from './health-finding';
import { type HealthInputs, pct, ratio, sumsBy, windowSums } from './health-inputs';
import { isHot, kindServed, placementsOf } from './placements';
import { fewerThanTwoPlaceable, firstReason, noTraffic } from './skip-reasons';

export const COLD_LOADS_MIN = 5;
export const COLD_LOAD_SHARE = 0.25;
/** Thrashing: this many cold loads in 24 h, this share of the node's requests, with this much memory free. */
export const THRASH_LOADS = 3;
export const THRASH_SHARE = 0.1;
export const THRASH_FREE_GB = 4;
/** The most requested models: this many, with at least this many requests in 24 h. */
export const PRIORITY_MODELS = 3;
export const PRIORITY_MIN_REQUESTS = 20;
/** Requests for a model no node has, in the last hour, before it is reported. */
export const UNAVAILABLE_MIN_FAILED = 5;
/** A model with this many requests in 24 h on one node only, in a fleet of several nodes. */
export const SPOF_MIN_REQUESTS = 20;

/** The request styles (fleet-hour `style_<style>`) each needing a kind of model, and the setting gating it. */
const STYLE_KINDS: readonly { style: string; kind: ModelKind; setting?: 'imageGeneration' | 'transcription' }[] = [
  { style: 'openai-chat', kind: 'llm' },
  { style: 'ollama-chat', kind: 'llm' },
  { style: 'ollama-generate', kind: 'llm' },
  { style: 'anthropic-messages', kind: 'llm' },
  { style: 'openai-responses', kind: 'llm' },
  { style: 'embeddings', kind: 'embedding' },
  { style: 'rerank', kind: 'rerank' },
  { style: 'image', kind: 'image', setting: 'imageGeneration' },
  { style: 'transcription', kind: 'transcription', setting: 'transcription' },
];

/** The checks on mapped models: the map names none. */
const noModelMap = ({ config }: HealthInputs) =>
  config.modelMap.size === 0 ? 'FLEET_MODEL_MAP maps no model' : undefined;

export const MODEL_CHECKS: HealthChecks = {
  frequent_cold_loads: {
    title: 'Requests waiting for a model load',
    severity: 'info',
    skip: noTraffic,
    run: ({ traffic, now }) =>
      [...sumsBy(traffic.modelHours, (row) => row.model, now)].flatMap(([model, { day }]) => {
        const share = ratio(day.counters.cold_loads, day.counters.requests) ?? 0;
        if (day.counters.cold_loads < COLD_LOADS_MIN || share < COLD_LOAD_SHARE) return [];
        return [
          finding('frequent_cold_loads', {
            severity: 'info',
            title: `${pct(share)} % of ${model}'s requests waited for a load`,
            description: `${day.counters.cold_loads} of ${day.counters.requests} requests for ${model} in 24 h found it unloaded.`,
            fix: 'Keep it loaded longer (OLLAMA_KEEP_ALIVE, or keep_alive in requests) on the nodes that serve it.',
            data: { model, cold_loads_24h: day.counters.cold_loads, requests_24h: day.counters.requests },
          }),
        ];
      }),
  },
  model_thrashing: {
    title: 'Nodes reloading models with memory free',
    severity: 'warning',
    skip: noTraffic,
    run: ({ snapshot, traffic, now }) =>
      [...sumsBy(traffic.nodeHours, (row) => row.nodeId, now)].flatMap(([nodeId, { day, recent }]) => {
        const node = snapshot.byId.get(nodeId);
        const freeGb = node?.memory?.availableGb;
        const share = ratio(day.counters.cold_loads, day.counters.requests) ?? 0;
        if (freeGb === undefined || freeGb <= THRASH_FREE_GB) return [];
        if (day.counters.cold_loads < THRASH_LOADS || share < THRASH_SHARE) return [];
        return [
          finding('model_thrashing', {
            severity: recent.counters.cold_loads > 0 ? 'warning' : 'info',
            title: `${nodeId} keeps reloading models with ${Math.round(freeGb)} GB free`,
            description: `${day.counters.cold_loads} of ${nodeId}'s ${day.counters.requests} requests in 24 h waited for a model load (${recent.counters.cold_loads} in the last hour) although it has memory free: models are unloaded too soon.`,
            fix: 'Raise OLLAMA_KEEP_ALIVE (or -1) and OLLAMA_MAX_LOADED_MODELS on the node.',
            nodeId,
            data: {
              cold_loads_24h: day.counters.cold_loads,
              cold_loads_last_hour: recent.counters.cold_loads,
              free_gb: freeGb,
            },
          }),
        ];
      }),
  },
  load_timeout: {
    title: 'Nodes missing the first-byte deadline',
    severity: 'warning',
    run: ({ ejections, now }) =>
      ejections
        .filter((ejection) => ejection.cause === 'first-byte-timeout')
        .map((ejection) =>
          finding('load_timeout', {
            severity: 'warning',
            title: `${ejection.nodeId} did not answer within the first-byte deadline`,
            description: `${ejection.nodeId} said nothing within the first-byte deadline (a model load too slow, or a hung runner); it is out of routing for ${Math.round((ejection.until - now) / 1000)} s.`,
            fix: 'Raise FLEET_FIRST_BYTE_TIMEOUT_MS for very large models, or keep them loaded; restart a hung runner.',
            nodeId: ejection.nodeId,
            data: { backend: ejection.backend, reason: ejection.reason },
          }),
        ),
  },
  mapped_model_missing: {
    title: 'Mapped models on some node',
    severity: 'critical',
    skip: noModelMap,
    run: ({ snapshot, config }) =>
      mappedTargets(config.modelMap).flatMap(([target, ids]) =>
        placementsOf(snapshot, target).length > 0
          ? []
          : [
              finding('mapped_model_missing', {
                severity: 'critical',
                title: `Mapped model ${target} is on no node`,
                description: `FLEET_MODEL_MAP sends ${ids.join(', ')} to ${target}, which no online node has: those requests fail${config.autoRoute ? ' or are auto-routed' : ''}.`,
                fix: `Pull ${target} onto a node (POST /api/pull), or change FLEET_MODEL_MAP.`,
                data: { model: target, client_ids: ids },
              }),
            ],
      ),
  },
  mapped_model_cold: {
    title: 'Mapped models loaded',
    severity: 'warning',
    skip: firstReason(noModelMap, noTraffic),
    run: ({ snapshot, config, traffic, now }) => {
      const perModel = sumsBy(traffic.modelHours, (row) => row.model, now);
      return mappedTargets(config.modelMap).flatMap(([target, ids]) => {
        const placements = placementsOf(snapshot, target);
        const recentLoads = perModel.get(target)?.recent.counters.cold_loads ?? 0;
        if (placements.length === 0 || isHot(placements) || recentLoads === 0) return [];
        return [
          finding('mapped_model_cold', {
            severity: 'warning',
            title: `Mapped model ${target} is not loaded`,
            description: `${target} (for ${ids.join(', ')}) is on disk but loaded nowhere, and ${recentLoads} requests in the last hour waited for it to load.`,
            fix: `Keep ${target} loaded (OLLAMA_KEEP_ALIVE=-1 on a node that has it).`,
            data: { model: target, client_ids: ids, cold_loads_last_hour: recentLoads },
          }),
        ];
      });
    },
  },
  priority_model_not_loaded: {
    title: 'The most requested models loaded',
    severity: 'warning',
    skip: noTraffic,
    run: ({ snapshot, traffic, now }) => {
      const perModel = [...sumsBy(traffic.modelHours, (row) => row.model, now)]
        .filter(([, sums]) => sums.day.counters.requests >= PRIORITY_MIN_REQUESTS)
        .sort((a, b) => b[1].day.counters.requests - a[1].day.counters.requests)
        .slice(0, PRIORITY_MODELS);
      return perModel.flatMap(([model, { day, recent }]) => {
        const placements = placementsOf(snapshot, model);
        if (placements.length === 0 || isHot(placements) || recent.counters.cold_loads < 2) return [];
        return [
          finding('priority_model_not_loaded', {
            severity: 'warning',
            title: `${model}, among the most requested, is not loaded`,
            description: `${model} had ${day.counters.requests} requests in 24 h, was loaded cold ${recent.counters.cold_loads} times in the last hour, and is loaded nowhere now.`,
            fix: `Keep ${model} loaded on at least one node (OLLAMA_KEEP_ALIVE=-1 there).`,
            data: { model, requests_24h: day.counters.requests, cold_loads_last_hour: recent.counters.cold_loads },
          }),
        ];
      });
    },
  },
  requested_model_unavailable: {
    title: 'Requested models on some node',
    severity: 'warning',
    skip: noTraffic,
    run: ({ snapshot, traffic, now }) =>
      [...sumsBy(traffic.modelHours, (row) => row.model, now)].flatMap(([model, { recent }]) => {
        if (recent.counters.failed < UNAVAILABLE_MIN_FAILED || placementsOf(snapshot, model).length > 0) return [];
        return [
          finding('requested_model_unavailable', {
            severity: 'warning',
            title: `Clients ask for ${model}, which no node has`,
            description: `${recent.counters.failed} requests for ${model} failed in the last hour, and no online node has it.`,
            fix: `Pull ${model} onto a node, or map the id to a fleet model in FLEET_MODEL_MAP.`,
            data: { model, failed_last_hour: recent.counters.failed },
          }),
        ];
      }),
  },
  no_node_for_kind: {
    title: 'A node for every kind of request',
    severity: 'critical',
    skip: noTraffic,
    run: ({ snapshot, traffic, config, now }) => {
      const { day } = windowSums(traffic.fleetHours, now);
      const missing = new Map<ModelKind, number>();
      for (const { style, kind, setting } of STYLE_KINDS) {
        const requests = day.styles[`style_${style}`] ?? 0;
        if (requests === 0 || (setting !== undefined && !config[setting]) || kindServed(snapshot, kind)) continue;
        missing.set(kind, (missing.get(kind) ?? 0) + requests);
      }
      return [...missing].map(([kind, requests]) =>
        finding('no_node_for_kind', {
          severity: 'critical',
          title: `No node serves ${kind} models`,
          description: `${requests} ${kind} requests came in the last 24 h, and no online node has a ${kind} model now: they fail.`,
          fix: `Pull a ${kind} model onto a node${kind === 'image' || kind === 'transcription' ? ', or start the node agent’s sidecar for it' : ''}.`,
          data: { kind, requests_24h: requests },
        }),
      );
    },
  },
  single_point_of_failure: {
    title: 'Busy models on more than one node',
    severity: 'info',
    skip: firstReason(fewerThanTwoPlaceable, noTraffic),
    run: ({ snapshot, traffic, now }) => {
      if (snapshot.nodes.filter(isPlaceable).length < 2) return [];
      return [...sumsBy(traffic.modelHours, (row) => row.model, now)].flatMap(([model, { day }]) => {
        const placements = placementsOf(snapshot, model);
        if (day.counters.requests < SPOF_MIN_REQUESTS || placements.length !== 1) return [];
        const nodeId = placements[0]?.node.id ?? null;
        return [
          finding('single_point_of_failure', {
            severity: 'info',
            title: `${model} is served by one node only`,
            description: `${model} had ${day.counters.requests} requests in 24 h and only ${nodeId} has it: if that node goes down they all fail.`,
            fix: `Pull ${model} onto a second node.`,
            ...(nodeId !== null ? { nodeId } : {}),
            data: { model, requests_24h: day.counters.requests },
          }),
        ];
      });
    },
  },
};

/** Each distinct target of the model map with the client ids sent to it. */
function mappedTargets(map: ReadonlyMap<string, string>): [string, string[]][] {
  const targets = new Map<string, string[]>();
  for (const [id, target] of map) targets.set(target, [...(targets.get(target) ?? []), id]);
  return [...targets];
}
