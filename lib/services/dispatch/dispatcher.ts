/**
 * The retry/fallback loop (issue: routing item 3; anchor §2.4–2.5): for the requested model, then each
 * of `fallback_models` in order, rank the nodes and try candidates best first — best by the instance's
 * strategy (FLEET_ROUTING_STRATEGY, lib/core/scoring/routing-strategy: the score's order by default). A
 * full queue moves on to the next candidate; a connection error, a time-out before the first byte or a
 * 5xx moves on too and counts as a retry, up to `maxRetries`; a 4xx is the client's and comes back as is. A model whose
 * candidates are all used up is "unavailable" and the next fallback is tried. Nothing to try: 404 or
 * 503 (./dispatch-failures). The served attempt keeps its queue slot: the caller relays the body and
 * releases the slot when the stream ends, which records the request's duration for the scorer.
 * Every decision is known before the first byte, so every X-Fleet-* header can be final.
 * Nodes ejected for failing (./outlier-ejection) are eliminated as `ejected`; whoever waited in an
 * ejected node's queue moves on to its next candidate at once, and the decision names the nodes skipped.
 * What the scorer learns lives here too: each completed request's node-reported rates (./node-rates) and
 * where each conversation's turn went (./prefix-residency).
 */
import type { FleetSnapshot } from '../../core/fleet/node';
import type { ConcurrencyOverrides } from '../../core/scoring/concurrency-limit';
import type { PrefixHint, QueueDepths } from '../../core/scoring/load-signals';
import type { NodeObservation } from '../../core/scoring/observed-rates';
import { type RankedCandidate, rankNodes } from '../../core/scoring/rank-nodes';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { type RoutingStrategy, STRATEGIES, type StrategyState } from '../../core/scoring/routing-strategy';
import type { ScoreBreakdown } from '../../core/scoring/score';
import type { AbortSource } from '../../core/stream/abort-source';
import type { AffinityTracker } from './affinity';
import type { AppLimits } from './app-limits';
import { type AttemptFailure, DispatchLog } from './dispatch-failures';
import { ejectFromPolls, evictEjected } from './evict-ejected';
import type { LatencyStats } from './latency-stats';
import type { NodeRates } from './node-rates';
import type { OutlierEjection } from './outlier-ejection';
import type { PrefillLedger } from './prefill-ledger';
import type { PrefixResidency } from './prefix-residency';
import type { QueueManager, Slot } from './queue-manager';
import type { ExchangeOutcome } from './reach';
import { throwIfAborted } from './request-aborted';
import type { NodeAttempt, NodeReply, NodeTransport } from './transport';
import { tryCandidate } from './try-candidate';

export interface DispatcherOptions {
  /** The current fleet snapshot (the registry's; at most a second old). */
  readonly snapshot: () => FleetSnapshot | Promise<FleetSnapshot>;
  readonly queues: QueueManager;
  /** The depths the scorer reads; `queues` when absent (one instance). See ./fleet-depths. */
  readonly depths?: QueueDepths;
  readonly affinity: AffinityTracker;
  readonly latency: LatencyStats;
  /** Failed attempts allowed beyond the first (FLEET_MAX_RETRIES). */
  readonly maxRetries: number;
  readonly concurrencyOverrides?: ConcurrencyOverrides;
  /** Which nodes are out of routing for failing, fed by every attempt's outcome; none when absent. */
  readonly ejection?: OutlierEjection;
  /** The nodes' observed prefill and decode rates and load times, fed by every completed request. */
  readonly rates?: NodeRates;
  /** Where each conversation's last turn went, for the prompt a node may still hold. */
  readonly residency?: PrefixResidency;
  /** The prompts each node is evaluating now, for the time a new one would take there. */
  readonly prefill?: PrefillLedger;
  /** How candidates are ordered (FLEET_ROUTING_STRATEGY); the score's order when absent. */
  readonly strategy?: RoutingStrategy;
  /** Each application's limit on requests in flight (FLEET_APP_LIMITS); none when absent. */
  readonly appLimits?: AppLimits;
  readonly clock?: () => number;
}

/** Why the request went where it went: what the X-Fleet-* headers and the trace report. */
export interface RoutingDecision {
  readonly nodeId: string;
  /** The winner's total (X-Fleet-Score). */
  readonly score: number;
  readonly breakdown: ScoreBreakdown;
  /** Failed attempts before this one (X-Fleet-Retries). */
  readonly retries: number;
  /** The entry of `fallback_models` that served, when the requested model did not. */
  readonly fallbackModel?: string;
  /** `matched`: back on the conversation's pinned node; `new`: elsewhere; absent: no conversation. */
  readonly affinity?: 'matched' | 'new';
  readonly requestedModel: string;
  /** The model's name on the node that served. */
  readonly servedModel: string;
  /** Nodes passed over because they were ejected (`a: node is ejected for 25 s more (…)`), for the trace. */
  readonly skipped?: readonly string[];
  /**
   * How long the request waited for the table's fleet read, ms: a cold start's first read, or a thawed
   * process's one read (lib/services/registry/snapshot-keeper); absent when it did not wait.
   */
  readonly tableWaitMs?: number;
  /** How long the request waited in node:model queues for a slot, ms, over its attempts; absent when it did not. */
  readonly queueWaitMs?: number;
}

export interface DispatchResult {
  readonly reply: NodeReply;
  readonly attempt: NodeAttempt;
  /**
   * Release when the stream ends: `completed` records the duration and what the node reported of itself
   * (its rates), `failed`/`cancelled` do not.
   */
  readonly slot: ServedSlot;
  readonly decision: RoutingDecision;
  /** Attempts that reached for a node and failed before this one (each counted as a retry). */
  readonly failedAttempts: readonly AttemptFailure[];
  /** When the served attempt was sent (the dispatcher's clock, epoch ms). */
  readonly sentAt: number;
}

/**
 * What a dispatch that throws had got to, for the trace of a request no node served: filled in as the
 * dispatch goes when the caller passes one.
 */
export interface DispatchTrail {
  /** The last candidate tried — queued on, or sent to — and how it ranked: where the request ended. */
  decision?: RoutingDecision;
  /** Attempts that reached for a node and failed (unreachable, 5xx), in order. */
  readonly failedAttempts: AttemptFailure[];
  /**
   * How long the request waited for the table's fleet read: what its route waited before the dispatch
   * (the caller sets it), plus the dispatch's own wait, added here.
   */
  tableWaitMs?: number;
}

/**
 * Dispatches one request: `send` is how an attempt reaches the node for this kind of work (the body it
 * posts, the path), everything else is the instance's routing state, so one dispatcher serves every
 * request of the instance.
 */
export type Dispatcher = (
  request: RoutingRequest,
  send: NodeTransport,
  signal: AbortSource,
  trail?: DispatchTrail,
) => Promise<DispatchResult>;

/** An attempt that reached for a node and failed: a retry, which leaves a `retried` trace. */
function isSendFailure(failure: AttemptFailure): boolean {
  return failure.kind === 'unreachable' || failure.kind === 'server-error';
}

/** A queue slot whose release may say what the node reported of the request it served. */
export interface ServedSlot extends Slot {
  release(outcome?: ExchangeOutcome, observation?: NodeObservation): void;
}

/**
 * The queue slot, plus what the scorer learns when it ends: the duration for the slot wait, and the node's
 * own prefill and decode times for its rates. Outlier ejection learns how the reply ended: whole, the
 * node's failures in a row start again from zero; cut mid-way by the node, it is one more of them (a
 * node that cuts every stream after its first bytes is ejected as one that answers 5xx is).
 */
function timedSlot(
  slot: Slot,
  sentAt: number,
  candidate: RankedCandidate,
  options: DispatcherOptions,
  clock: () => number,
  learnCache?: (evaluatedTokens: number) => void,
): ServedSlot {
  let released = false;
  return {
    nodeId: slot.nodeId,
    model: slot.model,
    release(outcome: ExchangeOutcome = 'completed', observation?: NodeObservation) {
      if (released) return;
      released = true;
      const target = { nodeId: slot.nodeId, backend: candidate.placement.backend };
      if (outcome === 'broke-off') {
        const now = clock();
        const ejection = options.ejection?.recordFailure(target, 'transport', 'broke off its reply', now);
        // Before the slot frees: no waiter is handed a slot on a node just ejected.
        if (ejection !== undefined) evictEjected(options.queues, candidate.node, ejection, now, candidate.model);
        slot.release('failed');
        return;
      }
      if (outcome === 'completed') {
        options.ejection?.recordSuccess(target);
        options.latency.recordDuration(slot.nodeId, slot.model, clock() - sentAt);
        if (observation !== undefined) {
          options.rates?.observe(slot.nodeId, slot.model, observation, candidate.slowdown, candidate.priors);
        }
        if (observation?.promptTokens !== undefined) learnCache?.(observation.promptTokens);
      }
      slot.release(outcome);
    },
  };
}

/** Turns per model and `Math.random`: what the simple strategies keep between requests. */
function strategyState(): StrategyState {
  const turns = new Map<string, number>();
  return {
    turn(model) {
      const turn = turns.get(model) ?? 0;
      turns.set(model, turn + 1);
      return turn;
    },
    random: Math.random,
  };
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const clock = options.clock ?? Date.now;
  const { queues, latency, affinity, ejection, rates, residency, prefill } = options;
  const strategy = options.strategy ?? STRATEGIES.score;
  const state = strategyState();

  // A waiting request has the latest snapshot's polls judged, so a node that went silent is ejected and
  // its queue moved on even when no new request comes to notice it.
  const judgeLatestPolls =
    ejection === undefined
      ? undefined
      : () => {
          const latest = options.snapshot();
          if (!(latest instanceof Promise)) ejectFromPolls(ejection, latest, queues, clock());
          else latest.then((snapshot) => ejectFromPolls(ejection, snapshot, queues, clock())).catch(() => undefined);
        };

  const route: Dispatcher = async (request, send, signal, trail) => {
    throwIfAborted(signal);
    const current = options.snapshot();
    let snapshot: FleetSnapshot;
    if (current instanceof Promise) {
      // Only a cold start or a thawed process waits here; the trace says how long.
      const before = clock();
      snapshot = await current;
      if (trail !== undefined) trail.tableWaitMs = (trail.tableWaitMs ?? 0) + clock() - before;
    } else snapshot = current;
    throwIfAborted(signal);
    if (ejection !== undefined) ejectFromPolls(ejection, snapshot, queues, clock());
    const key = request.conversationKey;
    // A conversation that goes on may have been pinned by another instance: worth a short wait (§3.6).
    const pinnedNodeId =
      key === undefined
        ? undefined
        : request.continuesConversation === true
          ? await affinity.recall(key)
          : affinity.pinned(key);
    throwIfAborted(signal);
    const models =
      request.fallbackModels.length === 0 ? [request.model] : [...new Set([request.model, ...request.fallbackModels])];
    const log = new DispatchLog();
    const tried: string[] = [];
    const queued = { waitedMs: 0 };
    const attemptDeps = {
      queues,
      send,
      clock,
      ejection,
      whileWaiting: judgeLatestPolls,
      claim: request.claim,
      queued,
      prefill,
      waits: latency,
    };

    for (const model of models) {
      tried.push(model);
      const now = clock();
      const context = {
        now,
        queues: options.depths ?? queues,
        latency,
        pinnedNodeId,
        concurrencyOverrides: options.concurrencyOverrides,
        ejected: ejection?.ejections(now),
        rates,
        prefix: prefixHint(request, key, residency),
        prefill,
        top: strategy.needsAll ? Number.MAX_SAFE_INTEGER : undefined,
      };
      const ranking = rankNodes(snapshot, request, context, model);
      log.eliminated(model, ranking.eliminated);
      for (const candidate of strategy.order(ranking.ranked, state, model)) {
        if (log.sendFailures > options.maxRetries) throw log.toError(snapshot, tried);
        if (log.isUnreachable(candidate.node.id)) continue;
        const decision = routingDecision(candidate, model, request.model, log, key, pinnedNodeId);
        if (trail?.tableWaitMs !== undefined) decision.tableWaitMs = trail.tableWaitMs;
        if (trail !== undefined) trail.decision = decision;
        const outcome = await tryCandidate(candidate, attemptDeps, signal);
        if (queued.waitedMs > 0) decision.queueWaitMs = queued.waitedMs;
        if (outcome.kind === 'failed') {
          log.failed(outcome.failure);
          if (trail !== undefined && isSendFailure(outcome.failure)) trail.failedAttempts.push(outcome.failure);
          continue;
        }
        const { reply, attempt, sentAt } = outcome;
        let learnCache: ((evaluatedTokens: number) => void) | undefined;
        if (reply.status < 400) {
          latency.recordFirstByte(attempt.node.id, attempt.model, clock() - sentAt);
          if (key !== undefined) affinity.pin(key, attempt.node.id);
          learnCache = cacheLearner(request, key, candidate, residency);
          residency?.served(key, attempt.node.id, attempt.model);
        }
        const slot = timedSlot(outcome.slot, sentAt, candidate, options, clock, learnCache);
        const failedAttempts = log.failures.filter(isSendFailure);
        if (log.skipped.length > 0) decision.skipped = [...log.skipped];
        return { reply, attempt, slot, decision, failedAttempts, sentAt };
      }
    }
    throw log.toError(snapshot, tried);
  };

  const appLimits = options.appLimits;
  if (appLimits === undefined) return route;
  // An application over its limit is refused before it queues; one under it is counted out when its
  // answer ends (its slot's release) or its dispatch fails.
  return async function dispatch(request, send, signal, trail) {
    const leave = appLimits.enter(request.claim);
    if (leave === undefined) return route(request, send, signal, trail);
    let result: DispatchResult;
    try {
      result = await route(request, send, signal, trail);
    } catch (error) {
      leave();
      throw error;
    }
    const { slot } = result;
    const release: ServedSlot['release'] = (outcome, observation) => {
      leave();
      slot.release(outcome, observation);
    };
    return { ...result, slot: { nodeId: slot.nodeId, model: slot.model, release } };
  };
}

/** The earlier turns' tokens of a conversation that goes on, and where they are likely still held. */
function prefixHint(
  request: RoutingRequest,
  key: string | undefined,
  residency: PrefixResidency | undefined,
): PrefixHint | undefined {
  const tokens = request.prefixTokens;
  if (key === undefined || residency === undefined || tokens === undefined || tokens <= 0) return undefined;
  return { tokens, likelihood: (nodeId, model, slots) => residency.likelihood(key, nodeId, model, slots) };
}

/**
 * What the node's answer teaches the residency: how much of this prompt it evaluated, against where the
 * conversation stood on it when sent (read before the turn is noted as served).
 */
function cacheLearner(
  request: RoutingRequest,
  key: string | undefined,
  candidate: RankedCandidate,
  residency: PrefixResidency | undefined,
): ((evaluatedTokens: number) => void) | undefined {
  const promptTokens = request.promptTokens;
  if (residency === undefined || promptTokens === undefined) return undefined;
  const { node, model, limit: slots } = candidate;
  const prefixTokens = request.prefixTokens ?? 0;
  const standing = key === undefined || prefixTokens <= 0 ? undefined : residency.standing(key, node.id, model);
  return (evaluatedTokens) =>
    residency.observe(node.id, model, { promptTokens, prefixTokens, evaluatedTokens, standing, slots });
}

/**
 * The decision for one candidate, its optional fields set one by one (lib/core/merged.ts: a literal with
 * spreads in the middle takes V8's slow path and a hidden class of its own).
 */
function routingDecision(
  candidate: RankedCandidate,
  model: string,
  requestedModel: string,
  log: DispatchLog,
  key: string | undefined,
  pinnedNodeId: string | undefined,
): { -readonly [K in keyof RoutingDecision]: RoutingDecision[K] } {
  const decision: { -readonly [K in keyof RoutingDecision]: RoutingDecision[K] } = {
    nodeId: candidate.node.id,
    score: candidate.score,
    breakdown: candidate.breakdown,
    retries: log.sendFailures,
    requestedModel,
    servedModel: candidate.model,
  };
  if (model !== requestedModel) decision.fallbackModel = model;
  if (key !== undefined) decision.affinity = pinnedNodeId === candidate.node.id ? 'matched' : 'new';
  if (log.skipped.length > 0) decision.skipped = [...log.skipped];
  return decision;
}
