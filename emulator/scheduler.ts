/**
 * Runs the functions serverless.yml schedules (the node poller) the way EventBridge would, but every
 * FLEET_POLL_INTERVAL_MS instead of once a minute, and never two invocations of one function at once
 * (its reserved concurrency is 1).
 */
import type { EmulatorFunction, EmulatorRouteTable } from './routes';

export interface SchedulerOptions {
  readonly table: EmulatorRouteTable;
  readonly loadHandler: (fn: EmulatorFunction) => unknown;
  readonly intervalMs: number;
  readonly log?: (line: string) => void;
}

type ScheduledHandler = (event: unknown, context: unknown) => Promise<unknown>;

/** The event the scheduled handler receives; `source` tells it to do one pass and return. */
export const EMULATOR_SCHEDULE_EVENT = Object.freeze({
  source: 'fleet.emulator',
  'detail-type': 'Scheduled Event',
  detail: {},
});

export function startScheduler(options: SchedulerOptions): { stop(): void } {
  const log = options.log ?? ((line: string) => console.error(line));
  const running = new Set<string>();
  const tick = () => {
    for (const fn of options.table.functions) {
      if (!fn.scheduled || running.has(fn.name)) continue;
      running.add(fn.name);
      const handler = options.loadHandler(fn) as ScheduledHandler;
      const context = { functionName: fn.name, getRemainingTimeInMillis: () => fn.timeoutSeconds * 1000 };
      handler(EMULATOR_SCHEDULE_EVENT, context)
        .catch((error: unknown) => log(`${fn.name}: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => running.delete(fn.name));
    }
  };
  tick();
  const timer = setInterval(tick, options.intervalMs);
  return { stop: () => clearInterval(timer) };
}
