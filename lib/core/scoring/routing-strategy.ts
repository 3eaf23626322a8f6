/**
 * The routing strategies an operator can choose (`FLEET_ROUTING_STRATEGY`, issue 41): `score`, the
 * default, orders candidates by the routing score (./score: expected time to first token from the
 * node's observed rates, queue and load, and the reference's other signals); the others are the simple
 * strategies users of other routers know (LiteLLM's least-busy and shuffle, Olla's least connections, a
 * plain load balancer's round robin). Every strategy sees the same survivors of elimination. Pure.
 */

export const ROUTING_STRATEGIES = ['score', 'least-busy', 'round-robin', 'random'] as const;

export type RoutingStrategyName = (typeof ROUTING_STRATEGIES)[number];
