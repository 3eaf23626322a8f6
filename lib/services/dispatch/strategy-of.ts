/**
 * The routing strategy this process routes by (issue 41): the operator's `FLEET_ROUTING_STRATEGY`, or one
 * that code in the same process installed before the first request. The second is how the routing bench
 * (bench/routing) runs its baseline of the reference implementation's published scoring through the real
 * router without making it an operator's option: no setting reaches it, only code loaded beside the
 * router. The hook lives on `globalThis` under a registered symbol because the emulator loads its
 * handlers as a bundle with its own copy of lib/.
 */
import { type RoutingStrategy, type RoutingStrategyName, STRATEGIES } from '../../core/scoring/routing-strategy';

const HOOK = Symbol.for('fleet-router.routing-strategy');

/** Makes `strategy` this process's, whatever the configuration says (the routing bench's baselines). */
export function installRoutingStrategy(strategy: RoutingStrategy): void {
  Reflect.set(globalThis, HOOK, strategy);
}

export function strategyOf(configured: RoutingStrategyName): RoutingStrategy {
  const installed: unknown = Reflect.get(globalThis, HOOK);
  return installed !== undefined ? (installed as RoutingStrategy) : STRATEGIES[configured];
}
