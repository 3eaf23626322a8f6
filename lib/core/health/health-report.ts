/**
 * `GET /dashboard/api/health` (issue 22 item 3; research anchor-ollama-herd.md §6.3–6.4): every check
 * run over one set of inputs, findings sorted critical → warning → info, the vitals of the last 24 h
 * and a 0–100 score (100 − 20 per critical − 10 per warning − 3 per info, floor 0: the reference's
 * weights, kept so a score means the same on both). Beside the findings, every check and what came of
 * it (issue 44 item 1): `passed`, `failed` (it raised findings) or `skipped` with the reason it could
 * not judge (no data for it, a feature off), so an operator or a monitor sees what was looked at, not
 * only a count. Pure: the inputs and the clock come in.
 */
import { CONTEXT_CHECKS } from './context-checks';
import { HARDWARE_CHECKS } from './hardware-checks';
import type { HealthCheck, HealthChecks, HealthFinding, Severity } from './health-finding';
import { errorsOf, type HealthInputs, pct, windowSums } from './health-inputs';
import { MEDIA_CHECKS } from './media-checks';
import { MODEL_CHECKS } from './model-checks';
import { NODE_CHECKS } from './node-checks';
import { QUEUE_CHECKS } from './queue-checks';
import { STORE_CHECKS } from './store-checks';
import { STREAM_CHECKS } from './stream-checks';
import { TRAFFIC_CHECKS } from './traffic-checks';
import { VERSION_CHECKS } from './version-checks';

/** The checks by group, in the order the report lists them (ids are unique across groups). */
export const HEALTH_GROUPS: Readonly<Record<string, HealthChecks>> = {
  nodes: NODE_CHECKS,
  hardware: HARDWARE_CHECKS,
  versions: VERSION_CHECKS,
  traffic: TRAFFIC_CHECKS,
  streams: STREAM_CHECKS,
  models: MODEL_CHECKS,
  context: CONTEXT_CHECKS,
  media: MEDIA_CHECKS,
  queues: QUEUE_CHECKS,
  store: STORE_CHECKS,
};

/** Every check by id. */
export const HEALTH_CHECKS: HealthChecks = Object.fromEntries(
  Object.values(HEALTH_GROUPS).flatMap((checks) => Object.entries(checks)),
);

export type CheckStatus = 'passed' | 'failed' | 'skipped';

/** One check as the report lists it. */
export interface CheckResult {
  readonly id: string;
  readonly group: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** Failed: the most severe of its findings; passed or skipped: the most severe it can raise. */
  readonly severity: Severity;
  /** How many findings it raised (0 unless failed). */
  readonly findings: number;
  /** Why it was skipped; null when it ran. */
  readonly reason: string | null;
}

export const SEVERITY_WEIGHTS: Readonly<Record<Severity, number>> = { critical: 20, warning: 10, info: 3 };
const SEVERITY_ORDER: Readonly<Record<Severity, number>> = { critical: 0, warning: 1, info: 2 };

export interface HealthVitals {
  readonly nodes_total: number;
  readonly nodes_online: number;
  readonly nodes_degraded: number;
  readonly nodes_offline: number;
  /** Failed and cut-off requests over all requests of 24 h; null with no request. */
  readonly overall_error_rate_pct: number | null;
  readonly cold_loads_24h: number;
  /** Mean time to first token over the requests that had one; null with none. */
  readonly avg_ttft_ms: number | null;
  readonly total_requests_24h: number;
  readonly total_retries_24h: number;
  readonly client_disconnects_24h: number;
  readonly incomplete_streams_24h: number;
  readonly image_generations_24h: number;
  readonly transcriptions_24h: number;
  readonly health_score: number;
}

export interface HealthReport {
  readonly vitals: HealthVitals;
  readonly recommendations: readonly HealthFinding[];
  /** RFC 3339 time the checks ran. */
  readonly checked_at: string;
  /** The router's own version, which the version checks speak of. */
  readonly router_version: string;
  /** How many checks there are (every one is tried every time; `checks` says which ran). */
  readonly checks_run: number;
  /** Every check, in group order, with what came of it. */
  readonly checks: readonly CheckResult[];
}

interface Outcome {
  readonly result: CheckResult;
  readonly findings: readonly HealthFinding[];
}

function outcome(id: string, group: string, check: HealthCheck, inputs: HealthInputs): Outcome {
  const base = { id, group, title: check.title };
  const reason = check.skip?.(inputs);
  if (reason !== undefined) {
    return { result: { ...base, status: 'skipped', severity: check.severity, findings: 0, reason }, findings: [] };
  }
  const findings = check.run(inputs);
  const worst = mostSevere(findings);
  return {
    result: {
      ...base,
      status: worst === undefined ? 'passed' : 'failed',
      severity: worst ?? check.severity,
      findings: findings.length,
      reason: null,
    },
    findings,
  };
}

function mostSevere(findings: readonly HealthFinding[]): Severity | undefined {
  let worst: Severity | undefined;
  for (const found of findings) {
    if (worst === undefined || SEVERITY_ORDER[found.severity] < SEVERITY_ORDER[worst]) worst = found.severity;
  }
  return worst;
}

function bySeverity(findings: readonly HealthFinding[]): HealthFinding[] {
  return [...findings].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}

function outcomes(inputs: HealthInputs, groups: Readonly<Record<string, HealthChecks>>): Outcome[] {
  return Object.entries(groups).flatMap(([group, checks]) =>
    Object.entries(checks).map(([id, check]) => outcome(id, group, check, inputs)),
  );
}

/** Every finding of the checks that run on these inputs, most severe first (stable within a severity). */
export function runChecks(inputs: HealthInputs, checks: HealthChecks = HEALTH_CHECKS): HealthFinding[] {
  return bySeverity(outcomes(inputs, { checks }).flatMap((ran) => ran.findings));
}

export function healthScore(findings: readonly HealthFinding[]): number {
  const penalty = findings.reduce((sum, found) => sum + SEVERITY_WEIGHTS[found.severity], 0);
  return Math.max(0, 100 - penalty);
}

export function healthVitals(inputs: HealthInputs, score: number): HealthVitals {
  const { nodes } = inputs.snapshot;
  const { day } = windowSums(inputs.traffic.fleetHours, inputs.now);
  const { counters } = day;
  return {
    nodes_total: nodes.length,
    nodes_online: nodes.filter((node) => node.status === 'online').length,
    nodes_degraded: nodes.filter((node) => node.status === 'degraded').length,
    nodes_offline: nodes.filter((node) => node.status === 'offline').length,
    overall_error_rate_pct: counters.requests > 0 ? pct(errorsOf(day) / counters.requests) : null,
    cold_loads_24h: counters.cold_loads,
    avg_ttft_ms: counters.ttft_count > 0 ? Math.round(counters.ttft_ms / counters.ttft_count) : null,
    total_requests_24h: counters.requests,
    total_retries_24h: counters.retries,
    client_disconnects_24h: counters.client_disconnected,
    incomplete_streams_24h: counters.incomplete,
    image_generations_24h: day.styles['style_image'] ?? 0,
    transcriptions_24h: day.styles['style_transcription'] ?? 0,
    health_score: score,
  };
}

export function healthReport(
  inputs: HealthInputs,
  groups: Readonly<Record<string, HealthChecks>> = HEALTH_GROUPS,
): HealthReport {
  const ran = outcomes(inputs, groups);
  const findings = bySeverity(ran.flatMap((one) => one.findings));
  const score = healthScore(findings);
  return {
    vitals: healthVitals(inputs, score),
    recommendations: findings,
    checked_at: new Date(inputs.now).toISOString(),
    router_version: inputs.routerVersion,
    checks_run: ran.length,
    checks: ran.map((one) => one.result),
  };
}
