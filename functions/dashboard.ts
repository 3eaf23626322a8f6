/** The dashboard surface (spec §4.7): the runtime settings, read and changed; the fleet's health. */

import { createHealthMonitor, type HealthMonitor } from '../lib/features/health/health-monitor';
import { serveHealth } from '../lib/features/health/serve-health';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

/**
 * The instance's health monitor (its cache outlives a request: one per container), made on first use
 * here rather than in lib/instance, so only this function's bundle carries the checks. The live events
 * stream takes its score from the same one: `healthMonitor(services).report(now)`.
 */
const monitors = new WeakMap<Services, HealthMonitor>();
export function healthMonitor(services: Services): HealthMonitor {
  const existing = monitors.get(services);
  if (existing !== undefined) return existing;
  const created = createHealthMonitor(services);
  monitors.set(services, created);
  return created;
}

export const routes = (services: Services): RouteTable => ({
  'GET /dashboard/api/health': (request, response) =>
    serveHealth({ health: healthMonitor(services) }, request, response),
  'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
  'POST /dashboard/api/settings': (request, response) => serveSettingsUpdate(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
