/**
 * The fleet snapshot for a routed request's own use before it is dispatched (model resolution, what the
 * model can do, which placements exist), and how long getting it waited for the table: the trace's
 * `tableWaitMs` (ARCHITECTURE.md §3.5). A process that runs never waits here; a cold start's first read
 * and a thawed process's one read do (./snapshot-keeper), and the route passes the wait on to its trace.
 */
import type { FleetSnapshot } from '../../core/fleet/node';
import type { FleetRegistry } from './registry';

export interface TimedSnapshot {
  readonly snapshot: FleetSnapshot;
  /** Ms waited for the table; undefined when the snapshot was at hand. */
  readonly tableWaitMs: number | undefined;
}

export async function timedSnapshot(
  registry: Pick<FleetRegistry, 'ready' | 'snapshot'>,
  clock: () => number = Date.now,
): Promise<TimedSnapshot> {
  const ready = registry.ready();
  if (ready !== undefined) return { snapshot: ready, tableWaitMs: undefined };
  const before = clock();
  const snapshot = await registry.snapshot();
  return { snapshot, tableWaitMs: clock() - before };
}

/** A request's waits for the table added up (the fleet read and the settings read); undefined if none. */
export function addWaits(first: number | undefined, second: number | undefined): number | undefined {
  if (first === undefined) return second;
  return second === undefined ? first : first + second;
}
