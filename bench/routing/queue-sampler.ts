/**
 * The router's own queue during a routing-bench replay (issue 41 item 3): `GET /fleet/queue` sampled
 * every 250 ms, keeping the most requests pending at once. The router says how many wait, not how many
 * waited in all; the peak is what the report shows.
 */
import { request } from 'undici';

const SAMPLE_MS = 250;

export interface QueueSampler {
  /** Stops sampling; resolves with the peak pending count seen. */
  stop(): Promise<number>;
}

export function sampleRouterQueue(routerUrl: string): QueueSampler {
  let peak = 0;
  let inFlight: Promise<void> = Promise.resolve();
  const sample = async (): Promise<void> => {
    try {
      const response = await request(`${routerUrl}/fleet/queue`);
      const body = (await response.body.json()) as { pending?: number };
      if (body.pending !== undefined) peak = Math.max(peak, body.pending);
    } catch {
      // A missed sample only lowers the chance of seeing the peak.
    }
  };
  const timer = setInterval(() => {
    inFlight = sample();
  }, SAMPLE_MS);
  return {
    stop: async () => {
      clearInterval(timer);
      await inFlight;
      return peak;
    },
  };
}
