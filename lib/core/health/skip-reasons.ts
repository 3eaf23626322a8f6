/**
 * Why a health check cannot judge the inputs (issue 44 item 1): the reasons several groups of checks
 * share. A check with nothing to look at is reported `skipped` with the reason, not `passed`: no
 * traffic is not a fleet without errors, and a fleet whose nodes report no disk is not one with room on
 * its disks. Each returns the reason, or undefined when the check can run. Pure.
 */
import type { NodeView } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';
import type { HealthInputs } from './health-inputs';
import { windowSums } from './health-inputs';

type Reason = string | undefined;

/** The checks that read the rollups: they were not read, or they hold no request. */
export function noTraffic({ traffic, trafficReadFailed, now }: HealthInputs): Reason {
  if (trafficReadFailed) return 'the analytics of the last 24 h could not be read';
  return windowSums(traffic.fleetHours, now).day.counters.requests === 0 ? 'no request in the last 24 h' : undefined;
}

/** The checks over the known nodes. */
export function noNodes({ snapshot }: HealthInputs): Reason {
  return snapshot.nodes.length === 0 ? 'no node is known' : undefined;
}

/** The checks over the nodes not offline that pass `test` (`what` says it: `reports its disk`). */
export function noLiveNodeThat(what: string, test: (node: NodeView) => boolean) {
  return ({ snapshot }: HealthInputs): Reason =>
    snapshot.nodes.some((node) => node.status !== 'offline' && test(node)) ? undefined : `no node that is up ${what}`;
}

/** The checks comparing nodes: fewer than two can take work. */
export function fewerThanTwoPlaceable({ snapshot }: HealthInputs): Reason {
  return snapshot.nodes.filter(isPlaceable).length < 2 ? 'fewer than two nodes can take work' : undefined;
}

/** The first reason of several, or undefined when none applies. */
export function firstReason(...reasons: ((inputs: HealthInputs) => Reason)[]) {
  return (inputs: HealthInputs): Reason => {
    for (const reason of reasons) {
      const found = reason(inputs);
      if (found !== undefined) return found;
    }
    return undefined;
  };
}
