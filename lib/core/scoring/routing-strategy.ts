/**
 * The routing strategies an operator can choose (`FLEET_ROUTING_STRATEGY`, issue 41): `score`, the
 * default, orders candidates by the routing score (./score: expected time to first token from the
 * node's observed rates, queue and load, and the reference's other signals); the others are the simple
 * strategies users of other routers know (LiteLLM's least-busy and shuffle, Olla's least connections, a
 * plain load balancer's round robin). Every strategy sees the same survivors of elimination. Pure.
 */

export const ROUTING_STRATEGIES = ['score', 'least-busy', 'round-robin', 'random'] as const;

export type RoutingStrategyName = (typeof ROUTING_STRATEGIES)[number];

/** What a strategy orders: the ranked candidates (score order), each with its depth, slots and score. */
export interface OrderableCandidate {
  readonly node: { readonly id: string };
  readonly depth: number;
  readonly limit: number;
}

/** What a strategy keeps between requests: a turn counter per model, and a source of randomness. */
export interface StrategyState {
  /** The next turn for `model` (0, 1, 2, … per model). */
  turn(model: string): number;
  /** A number in [0, 1). */
  random(): number;
}

/**
 * Orders one model's candidates for a request, best first. `score`'s order is the ranking's own, and so
 * needs only the best few; the others re-order every eligible candidate.
 */
export type CandidateOrder = <C extends OrderableCandidate>(
  ranked: readonly C[],
  state: StrategyState,
  model: string,
) => readonly C[];

export interface RoutingStrategy {
  readonly name: string;
  readonly order: CandidateOrder;
  /** The order reads every eligible candidate, not only the score's best few. */
  readonly needsAll: boolean;
}

function shuffled<C>(items: readonly C[], state: StrategyState): C[] {
  const out = [...items];
  for (let index = out.length - 1; index > 0; index -= 1) {
    const other = Math.floor(state.random() * (index + 1));
    const swap = out[index] as C;
    out[index] = out[other] as C;
    out[other] = swap;
  }
  return out;
}

/** The fewest requests queued or running per slot (LiteLLM's least-busy, Olla's least connections); ties at random. */
const leastBusy: CandidateOrder = (ranked, state) =>
  shuffled(ranked, state).sort((a, b) => a.depth / a.limit - b.depth / b.limit);

/** Each node in turn, in node-id order, whatever its load (a plain load balancer's round robin), per model. */
const roundRobin: CandidateOrder = (ranked, state, model) => {
  if (ranked.length <= 1) return ranked;
  const byId = [...ranked].sort((a, b) => (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0));
  const start = state.turn(model) % byId.length;
  return [...byId.slice(start), ...byId.slice(0, start)];
};

/** Any node, uniformly (LiteLLM's shuffle); the rest in random order for retries. */
const random: CandidateOrder = (ranked, state) => shuffled(ranked, state);

export const STRATEGIES: Readonly<Record<RoutingStrategyName, RoutingStrategy>> = {
  score: { name: 'score', order: (ranked) => ranked, needsAll: false },
  'least-busy': { name: 'least-busy', order: leastBusy, needsAll: true },
  'round-robin': { name: 'round-robin', order: roundRobin, needsAll: true },
  random: { name: 'random', order: random, needsAll: true },
};
