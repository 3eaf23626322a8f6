/**
 * The request-independent half of scoring (issue: routing item 1, budget "1,000 nodes in ≤ 100 µs"):
 * for one snapshot and one model, every placement's facts and static signal points laid out in flat
 * arrays, built once and reused by every request until the snapshot is replaced (at most once a
 * second, ARCHITECTURE.md §3.5). Scoring a request then reads these arrays instead of walking 1,000 node
 * objects. The points come from the signal functions themselves (./signals), so there is one formula.
 * A memo on an immutable snapshot (a WeakMap: it goes when the snapshot does), so ranking stays pure.
 */
import type { FleetSnapshot, ModelPlacement } from '../fleet/node';
import { type EliminationReason, eliminate } from './eliminate';
import { emptyLoadPoints, type LoadPoints } from './load-signals';
import { priorLoadMs, priorPrefillTps } from './observed-rates';
import { observedResidentBytes, residentBytes } from './resident-size';
import type { RoutingRequest } from './routing-request';
import { memoryFit, roleAffinity, type SignalInput, thermal, warmUntil } from './signals';

export interface Elimination {
  readonly nodeId: string;
  readonly reason: EliminationReason;
  /** Words beyond the reason's own (an ejection's cause and end). */
  readonly detail?: string;
  /** When waiting this long may help (an ejection's remaining time). */
  readonly retryAfterSeconds?: number;
  /** `context-too-long`: the prompt estimate and the model's maximum context it is far over. */
  readonly tooLong?: { readonly promptTokens: number; readonly maxContext: number };
}

/** Which placements a kind of request may use: the same for every request with these needs. */
export interface EliminationProfile {
  /** 1 where the placement is eliminated. */
  readonly out: Uint8Array;
  readonly eliminated: readonly Elimination[];
  readonly eligible: number;
}

export interface PlacementTable {
  readonly placements: readonly ModelPlacement[];
  /** The model's name on each placement (its queue key), and the placement's node id. */
  readonly names: readonly string[];
  readonly nodeIds: readonly string[];
  readonly resident: Float64Array;
  /** `thermal` points when the model is not warm, and when it is (equal unless it was unloaded). */
  readonly thermalCold: Float64Array;
  readonly thermalWarm: Float64Array;
  readonly warmUntil: Float64Array;
  readonly memoryFit: Float64Array;
  readonly roleAffinity: Float64Array;
  /** Ms a cold load should take here before the node reported one (./observed-rates); 0 where it is loaded. */
  readonly coldLoadMs: Float64Array;
  /**
   * Ms a load here costs the requests after it: where the model fits only by unloading others (./eliminate),
   * half the time to load back what it pushes out — the evicted models may be wanted again soon.
   */
  readonly evictMs: Float64Array;
  /** Prompt tokens per second to expect here before the node reported its rate (./observed-rates). */
  readonly priorPrefillTps: Float64Array;
  /** The distinct loaded context windows (0 = not loaded or unknown), and each placement's entry in it. */
  readonly windows: readonly number[];
  readonly windowOf: Int32Array;
  /** The model's own maximum context on each placement (`<arch>.context_length`); 0 when unknown. */
  readonly contextMax: Float64Array;
  /** The smallest known maximum (+∞ when none is known): prompts below it need no look at `contextMax`. */
  readonly smallestContextMax: number;
  /** What each node reports as its parallelism (concurrency limits are worked out from it per request). */
  readonly numParallel: Int32Array;
  /** Free memory in GiB for the tie-break; −∞ when the node reports none. */
  readonly freeMemory: Float64Array;
  /** Position of each placement's node id in id order, for the last tie-break. */
  readonly idOrder: Int32Array;
  /** Placement name → node id → index: finds the few busy or pinned nodes without a scan. */
  readonly indexOf: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Zeroed load arrays each ranking borrows and clears (./load-signals). */
  readonly scratch: LoadPoints;
  profile(request: Pick<RoutingRequest, 'kind' | 'needsVision' | 'needsTools'>): EliminationProfile;
}

/** Share of the evicted models' load time counted against a load that pushes them out. */
const EVICTION_SHARE = 0.5;
const BYTES_PER_GIB = 2 ** 30;

function evictionMs(placement: ModelPlacement, resident: number): number {
  const free = (placement.node.memory?.availableGb ?? Number.POSITIVE_INFINITY) * BYTES_PER_GIB;
  const pushedOut = resident - free;
  return pushedOut > 0 ? EVICTION_SHARE * priorLoadMs(pushedOut) : 0;
}

const NO_DELAY = Object.freeze({ waitMs: 0, loadMs: 0, prefillMs: 0 });

const tables = new WeakMap<FleetSnapshot, Map<string, PlacementTable>>();

function placementName(placement: ModelPlacement, fallback: string): string {
  return placement.model?.name ?? placement.sidecarModel?.name ?? fallback;
}

/**
 * Position of each placement's node id in id order, for the last tie-break. The snapshot lists
 * placements by node id already, so this is usually 0, 1, 2… without a sort.
 */
function idOrder(placements: readonly ModelPlacement[]): Int32Array {
  const rank = new Int32Array(placements.length);
  let sorted = true;
  for (let index = 1; index < placements.length && sorted; index += 1) {
    sorted = (placements[index - 1]?.node.id ?? '') <= (placements[index]?.node.id ?? '');
  }
  if (sorted) {
    rank.forEach((_, index) => {
      rank[index] = index;
    });
    return rank;
  }
  const order = Array.from(placements.keys()).sort((a, b) => {
    const idA = placements[a]?.node.id ?? '';
    const idB = placements[b]?.node.id ?? '';
    return idA < idB ? -1 : idA > idB ? 1 : a - b;
  });
  order.forEach((index, position) => {
    rank[index] = position;
  });
  return rank;
}

function smallestContextMax(placements: readonly ModelPlacement[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (const placement of placements) {
    const max = placement.model?.contextLength;
    if (max !== undefined && max > 0 && max < smallest) smallest = max;
  }
  return smallest;
}

function buildTable(placements: readonly ModelPlacement[], model: string): PlacementTable {
  const size = placements.length;
  const observed = observedResidentBytes(placements);
  const windows: number[] = [];
  const profiles = new Map<string, EliminationProfile>();
  const indexOf = new Map<string, Map<string, number>>();
  // One literal with every field, `profile` included. Spread into a new literal with `profile` added
  // (see lib/core/merged.ts), each table got a hidden class of its own once this builder ran optimised; with
  // new tables every snapshot, the ranking code read them polymorphically and deoptimised again and again.
  const table: PlacementTable = {
    placements,
    names: placements.map((placement) => placementName(placement, model)),
    nodeIds: placements.map((placement) => placement.node.id),
    resident: new Float64Array(size),
    thermalCold: new Float64Array(size),
    thermalWarm: new Float64Array(size),
    warmUntil: new Float64Array(size),
    memoryFit: new Float64Array(size),
    roleAffinity: new Float64Array(size),
    coldLoadMs: new Float64Array(size),
    evictMs: new Float64Array(size),
    priorPrefillTps: new Float64Array(size),
    windows,
    windowOf: new Int32Array(size),
    contextMax: new Float64Array(size),
    smallestContextMax: smallestContextMax(placements),
    numParallel: new Int32Array(size),
    freeMemory: new Float64Array(size),
    idOrder: idOrder(placements),
    indexOf,
    scratch: emptyLoadPoints(size),
    profile(request) {
      const key = `${request.kind}:${request.needsVision}:${request.needsTools === true}`;
      let profile = profiles.get(key);
      if (profile === undefined) {
        const out = new Uint8Array(size);
        const eliminated: Elimination[] = [];
        placements.forEach((placement, index) => {
          const reason = eliminate(placement, request, table.resident[index] ?? 0);
          if (reason === undefined) return;
          out[index] = 1;
          eliminated.push({ nodeId: placement.node.id, reason });
        });
        profile = { out, eliminated, eligible: size - eliminated.length };
        profiles.set(key, profile);
      }
      return profile;
    },
  };
  placements.forEach((placement, index) => {
    const name = table.names[index] ?? model;
    const resident = residentBytes(placement, observed);
    const until = warmUntil(placement.node, name);
    // Static signals ignore depth, latency, prompt and pin; `now` only moves thermal between cold and warm.
    const input: SignalInput = {
      node: placement.node,
      placement,
      model: name,
      resident,
      depth: 0,
      limit: 1,
      p75Ms: undefined,
      ttft: NO_DELAY,
      promptTokens: undefined,
      pinned: false,
      now: Number.POSITIVE_INFINITY,
    };
    table.resident[index] = resident;
    table.thermalCold[index] = thermal(input).points;
    table.thermalWarm[index] = Number.isFinite(until)
      ? thermal({ ...input, now: until }).points
      : table.thermalCold[index];
    table.warmUntil[index] = until;
    table.memoryFit[index] = memoryFit(input).points;
    table.roleAffinity[index] = roleAffinity(input).points;
    // A sidecar's model has no load the node reports, and its work no prompt to evaluate.
    const llm = placement.model !== undefined;
    const cold = llm && placement.loaded === undefined;
    table.coldLoadMs[index] = cold ? priorLoadMs(resident) : 0;
    table.evictMs[index] = cold ? evictionMs(placement, resident) : 0;
    table.priorPrefillTps[index] = priorPrefillTps(placement.node.hardware.memoryBandwidthGbps, resident);
    const window = placement.loaded?.contextLength ?? 0;
    let windowAt = windows.indexOf(window);
    if (windowAt < 0) windowAt = windows.push(window) - 1;
    table.windowOf[index] = windowAt;
    table.contextMax[index] = placement.model?.contextLength ?? 0;
    table.numParallel[index] = placement.node.numParallel;
    table.freeMemory[index] = placement.node.memory?.availableGb ?? Number.NEGATIVE_INFINITY;
    let byNode = indexOf.get(name);
    if (byNode === undefined) {
      byNode = new Map();
      indexOf.set(name, byNode);
    }
    if (!byNode.has(placement.node.id)) byNode.set(placement.node.id, index);
  });
  return table;
}

/** The table for a model name on this snapshot, built on first use; undefined when no node holds the model. */
export function placementTable(snapshot: FleetSnapshot, model: string): PlacementTable | undefined {
  const placements = snapshot.placements.get(model);
  if (placements === undefined || placements.length === 0) return undefined;
  let byModel = tables.get(snapshot);
  if (byModel === undefined) {
    byModel = new Map();
    tables.set(snapshot, byModel);
  }
  let table = byModel.get(model);
  if (table === undefined) {
    table = buildTable(placements, model);
    byModel.set(model, table);
  }
  return table;
}
