/**
 * The health report (issue 22 item 3): the reference's score weights, the vitals of the last 24 h,
 * findings most severe first, the severities that depend on the last hour, and every check listed with
 * what came of it — passed, failed with its worst severity, or skipped with the reason (issue 44 item 1).
 */
import { describe, expect, it } from '@jest/globals';
import { finding } from '../../../../lib/core/health/health-finding';
import {
  HEALTH_CHECKS,
  HEALTH_GROUPS,
  healthReport,
  healthScore,
  runChecks,
} from '../../../../lib/core/health/health-report';
import { NODE_CHECKS } from '../../../../lib/core/health/node-checks';
import { TRAFFIC_CHECKS } from '../../../../lib/core/health/traffic-checks';
import { HEALTHY_RECORDS, healthyTraces, hourStart, inputsWith, NOW, recordsWith } from './healthy-fleet';

const FLEET_ERROR_RATE = Object.fromEntries(Object.entries(TRAFFIC_CHECKS).filter(([id]) => id === 'fleet_error_rate'));
const info = finding('x', { severity: 'info', title: '', description: '', fix: '' });
const warning = { ...info, severity: 'warning' as const };
const critical = { ...info, severity: 'critical' as const };

describe('health report', () => {
  it('scores 100 − 20 per critical − 10 per warning − 3 per info, never below 0', () => {
    expect(healthScore([])).toBe(100);
    expect(healthScore([critical, warning, info, info])).toBe(64);
    expect(healthScore(Array.from({ length: 6 }, () => critical))).toBe(0);
  });

  it('gives the vitals of the last 24 h and a score of 100 on a healthy fleet', () => {
    const report = healthReport(inputsWith());

    // Per hour: 3 nodes × (10 chats + 2 embeddings) + 1 image + 1 transcription = 38; all TTFTs 300 ms but one 4300 ms.
    expect(report.vitals).toEqual({
      nodes_total: 3,
      nodes_online: 3,
      nodes_degraded: 0,
      nodes_offline: 0,
      overall_error_rate_pct: 0,
      cold_loads_24h: 1,
      avg_ttft_ms: Math.round((912 * 300 + 4000) / 912),
      total_requests_24h: 912,
      total_retries_24h: 0,
      client_disconnects_24h: 0,
      incomplete_streams_24h: 0,
      image_generations_24h: 24,
      transcriptions_24h: 24,
      health_score: 100,
    });
    expect(report).toMatchObject({
      recommendations: [],
      checked_at: new Date(NOW).toISOString(),
      router_version: '0.1.0',
    });
    expect(report.checks_run).toBeGreaterThanOrEqual(30);
  });

  it('says null, not 0, for rates and times it has no request for', () => {
    const { vitals } = healthReport(inputsWith({ traces: [] }));

    expect(vitals).toMatchObject({ overall_error_rate_pct: null, avg_ttft_ms: null, total_requests_24h: 0 });
  });

  it('scores an offline node as one critical, and lists findings most severe first', () => {
    const inputs = inputsWith({
      records: recordsWith('gpu3', (record) => ({ ...record, lastSeenAt: NOW - 60_000, version: '0.13.0' })),
      writes: { failedFlushes: 1, rejected: 0, pending: 0, spanMs: 300_000, scope: 'this instance' },
    });

    const report = healthReport(inputs);

    // gpu3 is offline, so its Ollama version no longer counts against the others, and gpu2 is the one
    // node left with the speech-to-text model.
    expect(report.recommendations.map((found) => [found.check_id, found.severity, found.node_id])).toEqual([
      ['node_offline', 'critical', 'gpu3'],
      ['table_write_failures', 'warning', null],
      ['single_point_of_failure', 'info', 'gpu2'],
    ]);
    expect(report.vitals).toMatchObject({ nodes_online: 2, nodes_offline: 1, health_score: 67 });
  });

  it('reports a draining node as draining, not offline', () => {
    const inputs = inputsWith({ records: recordsWith('gpu3', (record) => ({ ...record, draining: true })) });

    expect(runChecks(inputs, NODE_CHECKS).map((found) => found.check_id)).toEqual(['node_draining']);
  });

  it('calls an error rate that ended before the last hour recovered (info), one still going a warning', () => {
    const failedEarly = healthyTraces().map((entry, index) =>
      entry.startedAt < hourStart(12) && index % 5 === 0 ? { ...entry, status: 'failed' as const } : entry,
    );
    const failingNow = healthyTraces().map((entry, index) =>
      index % 5 === 0 ? { ...entry, status: 'failed' as const } : entry,
    );

    const recovered = runChecks(inputsWith({ traces: failedEarly }), FLEET_ERROR_RATE);
    const still = runChecks(inputsWith({ traces: failingNow }), FLEET_ERROR_RATE);

    expect(recovered).toEqual([
      expect.objectContaining({ severity: 'info', data: expect.objectContaining({ error_rate_last_hour_pct: 0 }) }),
    ]);
    expect(still).toEqual([expect.objectContaining({ severity: 'warning' })]);
  });

  it('leaves one failure in a quiet fleet alone (below the minimum of requests)', () => {
    const traces = healthyTraces()
      .slice(0, 10)
      .map((entry, index) => (index === 0 ? { ...entry, status: 'failed' as const } : entry));

    expect(runChecks(inputsWith({ traces }), TRAFFIC_CHECKS)).toEqual([]);
  });

  it('lists every check once, by group, with a title, and passed on a healthy fleet but the one with nothing to look at', () => {
    const { checks } = healthReport(inputsWith());

    expect(checks.map((check) => check.id)).toEqual(Object.keys(HEALTH_CHECKS));
    expect(new Set(checks.map((check) => check.id)).size).toBe(checks.length);
    for (const check of checks) {
      expect(Object.keys(HEALTH_GROUPS[check.group] ?? {})).toContain(check.id);
      expect(check.title).toMatch(/^[A-Z].{5,}/);
      expect(check.severity).toBe(HEALTH_CHECKS[check.id]?.severity);
    }
    // Every node of the healthy fleet is a node agent: the check on listed nodes has none to look at.
    expect(checks.filter((check) => check.status !== 'passed')).toEqual([
      {
        id: 'ollama_version_unknown',
        group: 'versions',
        title: 'Listed nodes say their Ollama version',
        status: 'skipped',
        severity: 'info',
        findings: 0,
        reason: 'no node that is up is a listed node',
      },
    ]);
  });

  it('marks a check with findings failed, with the most severe of them and their count', () => {
    const inputs = inputsWith({
      records: HEALTHY_RECORDS.map((record) => ({ ...record, lastSeenAt: NOW - 60_000 })),
    });

    const report = healthReport(inputs);

    expect(report.checks.find((check) => check.id === 'node_offline')).toEqual({
      id: 'node_offline',
      group: 'nodes',
      title: 'Nodes offline',
      status: 'failed',
      severity: 'critical',
      findings: 3,
      reason: null,
    });
    const failed = report.checks.filter((check) => check.status === 'failed').map((check) => check.id);
    expect(failed.sort()).toEqual([...new Set(report.recommendations.map((found) => found.check_id))].sort());
  });

  it('skips the checks on traffic, saying why, when the analytics cannot be read or hold no request', () => {
    const unreadable = healthReport(inputsWith({ trafficReadFailed: true, traces: [] }));
    const quiet = healthReport(inputsWith({ traces: [] }));

    const status = (report: typeof quiet, id: string) => report.checks.find((check) => check.id === id);
    expect(status(unreadable, 'fleet_error_rate')).toMatchObject({
      status: 'skipped',
      reason: 'the analytics of the last 24 h could not be read',
    });
    expect(status(unreadable, 'analytics_unreadable')).toMatchObject({ status: 'failed', severity: 'critical' });
    expect(status(quiet, 'fleet_error_rate')).toMatchObject({
      status: 'skipped',
      reason: 'no request in the last 24 h',
    });
    expect(status(quiet, 'node_offline')).toMatchObject({ status: 'passed', reason: null });
    // A skipped check adds nothing to the score.
    expect(quiet.vitals.health_score).toBe(100);
  });

  it('skips the failure check of a feature that is off', () => {
    const inputs = inputsWith({ config: { ...inputsWith().config, imageGeneration: false } });

    const image = healthReport(inputs).checks.find((check) => check.id === 'image_failures');

    expect(image).toMatchObject({ status: 'skipped', reason: 'image generation is off' });
  });
});
