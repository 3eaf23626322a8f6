/**
 * Health checks on the traffic of the last 24 h (issue 22 item 3, from the hourly rollups): error rates
 * of the fleet, of each node and of each model (a warning while the last hour is as bad, else an info
 * that it recovered), retries and fallbacks. Each needs a minimum of requests, so one failure in a quiet
 * hour fires nothing; a fleet whose requests complete fires nothing. Pure.
 */
import type { Rollup } from '../analytics/rollup';
import { finding, type HealthChecks, type HealthFinding } from './health-finding';
import { errorsOf, pct, ratio, sumsBy, type WindowSums, windowSums } from './health-inputs';
import { noTraffic } from './skip-reasons';

/** Requests in 24 h before an error rate counts, and in the last hour before it counts as "still". */
export const MIN_REQUESTS = 20;
export const MIN_RECENT_REQUESTS = 5;
export const ERROR_RATE = 0.05;
export const MODEL_ERROR_RATE = 0.1;
/** Retries per request: info from the first, warning from the second. */
export const RETRY_RATE_INFO = 0.3;
export const RETRY_RATE_WARNING = 0.5;
/** Requests answered by a fallback model: info from the first share, warning from the second. */
export const FALLBACK_SHARE_INFO = 0.01;
export const FALLBACK_SHARE_WARNING = 0.1;

const errorRate = (rollup: Rollup) => ratio(errorsOf(rollup), rollup.counters.requests) ?? 0;

interface Scope {
  readonly checkId: string;
  readonly label: string;
  readonly threshold: number;
  readonly nodeId?: string;
  readonly fix: string;
}

/** An error-rate finding for one scope, or none below the threshold. */
function errorRateFinding(sums: WindowSums, scope: Scope): HealthFinding[] {
  const { day, recent } = sums;
  if (day.counters.requests < MIN_REQUESTS || errorRate(day) < scope.threshold) return [];
  const still = recent.counters.requests >= MIN_RECENT_REQUESTS && errorRate(recent) >= scope.threshold;
  return [
    finding(scope.checkId, {
      severity: still ? 'warning' : 'info',
      title: still
        ? `${scope.label}: ${pct(errorRate(day))} % of requests failed`
        : `${scope.label} recovered from ${pct(errorRate(day))} % errors`,
      description: `${errorsOf(day)} of ${day.counters.requests} requests in 24 h failed or were cut off (${day.counters.failed} failed, ${day.counters.incomplete} incomplete)${still ? `, ${pct(errorRate(recent))} % in the last hour` : '; the last hour is below the threshold'}.`,
      fix: scope.fix,
      ...(scope.nodeId !== undefined ? { nodeId: scope.nodeId } : {}),
      data: {
        requests_24h: day.counters.requests,
        errors_24h: errorsOf(day),
        error_rate_pct: pct(errorRate(day)),
        requests_last_hour: recent.counters.requests,
        error_rate_last_hour_pct: recent.counters.requests > 0 ? pct(errorRate(recent)) : null,
      },
    }),
  ];
}

export const TRAFFIC_CHECKS: HealthChecks = {
  fleet_error_rate: {
    title: 'Error rate of the fleet',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) =>
      errorRateFinding(windowSums(traffic.fleetHours, now), {
        checkId: 'fleet_error_rate',
        label: 'The fleet',
        threshold: ERROR_RATE,
        fix: 'See the failed traces (/dashboard/api/traces) for the errors and the nodes they came from.',
      }),
  },
  high_error_rate: {
    title: 'Error rate per node',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) =>
      [...sumsBy(traffic.nodeHours, (row) => row.nodeId, now)].flatMap(([nodeId, sums]) =>
        errorRateFinding(sums, {
          checkId: 'high_error_rate',
          label: nodeId,
          threshold: ERROR_RATE,
          nodeId,
          fix: `Look at ${nodeId}'s Ollama log; a node that keeps failing can be drained until it is fixed.`,
        }),
      ),
  },
  model_error_rate: {
    title: 'Error rate per model',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) =>
      [...sumsBy(traffic.modelHours, (row) => row.model, now)].flatMap(([model, sums]) =>
        errorRateFinding(sums, {
          checkId: 'model_error_rate',
          label: model,
          threshold: MODEL_ERROR_RATE,
          fix: `Check ${model} loads and answers on its nodes (ollama run ${model}); a damaged download needs a new pull.`,
        }).map((found) => ({ ...found, data: { model, ...found.data } })),
      ),
  },
  high_retry_rate: {
    title: 'Retries per request',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) => {
      const { day } = windowSums(traffic.fleetHours, now);
      const rate = ratio(day.counters.retries, day.counters.requests);
      if (day.counters.requests < MIN_REQUESTS || rate === undefined || rate < RETRY_RATE_INFO) return [];
      return [
        finding('high_retry_rate', {
          severity: rate >= RETRY_RATE_WARNING ? 'warning' : 'info',
          title: `${Math.round(rate * 100) / 100} retries per request`,
          description: `Requests were retried on another node ${day.counters.retries} times in 24 h over ${day.counters.requests} requests: the first node chosen often fails.`,
          fix: 'See which nodes the retried traces came from; eject or drain the failing one.',
          data: { retries_24h: day.counters.retries, requests_24h: day.counters.requests, retries_per_request: rate },
        }),
      ];
    },
  },
  fallbacks_used: {
    title: 'Requests answered by a fallback model',
    severity: 'warning',
    skip: noTraffic,
    run: ({ traffic, now }) => {
      const { day } = windowSums(traffic.fleetHours, now);
      const share = ratio(day.counters.fallbacks, day.counters.requests);
      if (share === undefined || day.counters.fallbacks === 0 || share < FALLBACK_SHARE_INFO) return [];
      return [
        finding('fallbacks_used', {
          severity: share >= FALLBACK_SHARE_WARNING ? 'warning' : 'info',
          title: `${pct(share)} % of requests were answered by a fallback model`,
          description: `${day.counters.fallbacks} of ${day.counters.requests} requests in 24 h could not be served by the model they asked for.`,
          fix: 'Load the requested models on more nodes, or give their nodes more memory.',
          data: { fallbacks_24h: day.counters.fallbacks, requests_24h: day.counters.requests, share_pct: pct(share) },
        }),
      ];
    },
  },
};
