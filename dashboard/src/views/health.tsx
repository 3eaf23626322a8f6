/**
 * The Health view (issue 23): the router's health report (`GET api/health`) — the 0–100 score and the
 * vitals of the last 24 h, then every finding grouped by severity (critical, warning, info) with what it
 * is about and how to fix it, then the checks that passed and those skipped with why, collapsed (issue
 * 44 item 1) — read every 30 s and on demand.
 */
import './health.css';
import type { HealthFinding, Severity } from '../../../lib/core/health/health-finding';
import type { CheckResult, HealthReport } from '../../../lib/core/health/health-report';
import { WithData } from '../components/states';
import { Panel, Stat, View } from '../components/view';
import * as format from '../format';
import { useApi } from '../hooks';

const REFRESH_MS = 30_000;

const SEVERITIES: readonly { id: Severity; title: string; level: 'bad' | 'warn' | 'info' }[] = [
  { id: 'critical', title: 'Critical', level: 'bad' },
  { id: 'warning', title: 'Warning', level: 'warn' },
  { id: 'info', title: 'Info', level: 'info' },
];

function scoreLevel(score: number): 'ok' | 'warn' | 'bad' {
  if (score >= 90) return 'ok';
  return score >= 60 ? 'warn' : 'bad';
}

function Score({ report }: { report: HealthReport }) {
  const score = report.vitals.health_score;
  const level = scoreLevel(score);
  return (
    <div class={`health-score health-${level}`}>
      <span class="health-score-value">
        {format.count(score)}
        <span class="health-score-max"> / 100</span>
      </span>
      <span class="health-score-label">
        Health score: {level === 'ok' ? 'healthy' : level === 'warn' ? 'needs attention' : 'unhealthy'}
      </span>
      <span class="health-score-meta">
        {format.count(report.checks_run)} checks, run {format.dateTime(report.checked_at)} · router{' '}
        {report.router_version}
      </span>
    </div>
  );
}

function Vitals({ report }: { report: HealthReport }) {
  const v = report.vitals;
  return (
    <section class="stats" aria-label="Vitals, last 24 h">
      <Stat label="Nodes online" value={format.count(v.nodes_online)} hint={`of ${format.count(v.nodes_total)}`} />
      <Stat label="Nodes degraded" value={format.count(v.nodes_degraded)} />
      <Stat label="Nodes offline" value={format.count(v.nodes_offline)} />
      <Stat label="Requests, 24 h" value={format.count(v.total_requests_24h)} />
      <Stat label="Error rate, 24 h" value={format.percent(v.overall_error_rate_pct)} />
      <Stat label="Mean TTFT, 24 h" value={format.duration(v.avg_ttft_ms)} />
      <Stat label="Retries, 24 h" value={format.count(v.total_retries_24h)} />
      <Stat label="Cold loads, 24 h" value={format.count(v.cold_loads_24h)} />
      <Stat label="Client disconnects, 24 h" value={format.count(v.client_disconnects_24h)} />
      <Stat label="Incomplete streams, 24 h" value={format.count(v.incomplete_streams_24h)} />
      <Stat label="Images, 24 h" value={format.count(v.image_generations_24h)} />
      <Stat label="Transcriptions, 24 h" value={format.count(v.transcriptions_24h)} />
    </section>
  );
}

function Finding({ finding }: { finding: HealthFinding }) {
  return (
    <li class="finding">
      <h3>{finding.title}</h3>
      <p class="finding-about">{finding.node_id === null ? 'The fleet' : `Node ${finding.node_id}`}</p>
      <p>{finding.description}</p>
      <p class="finding-fix">
        <strong>Fix:</strong> {finding.fix}
      </p>
    </li>
  );
}

function Findings({ findings }: { findings: readonly HealthFinding[] }) {
  if (findings.length === 0) {
    return (
      <div class="notice health-clear" role="status">
        <p>No findings: every check passed.</p>
      </div>
    );
  }
  return (
    <>
      {SEVERITIES.map((severity) => {
        const found = findings.filter((finding) => finding.severity === severity.id);
        if (found.length === 0) return null;
        return (
          <Panel key={severity.id} title={`${severity.title} (${found.length})`} id={`severity-${severity.id}`}>
            <ul class={`findings findings-${severity.level}`}>
              {found.map((finding, index) => (
                <Finding key={`${finding.check_id}-${finding.node_id ?? ''}-${index}`} finding={finding} />
              ))}
            </ul>
          </Panel>
        );
      })}
    </>
  );
}

/** Checks of one status, collapsed: the title, the group, and why a skipped one did not run. */
function CheckList({ title, checks }: { title: string; checks: readonly CheckResult[] }) {
  if (checks.length === 0) return null;
  return (
    <details class="health-checks">
      <summary>
        {title} ({checks.length})
      </summary>
      <ul>
        {checks.map((check) => (
          <li key={check.id}>
            <span class="health-check-title">{check.title}</span>{' '}
            <span class="health-check-meta">
              {check.group} · {check.id}
            </span>
            {check.reason !== null && <p class="health-check-reason">Not run: {check.reason}.</p>}
          </li>
        ))}
      </ul>
    </details>
  );
}

function Checks({ checks }: { checks: readonly CheckResult[] }) {
  return (
    <Panel title="Checks" id="health-checks">
      <p class="state">
        {format.count(checks.filter((check) => check.status === 'failed').length)} failed (above),{' '}
        {format.count(checks.filter((check) => check.status === 'passed').length)} passed,{' '}
        {format.count(checks.filter((check) => check.status === 'skipped').length)} skipped for want of something to
        look at.
      </p>
      <CheckList title="Passed checks" checks={checks.filter((check) => check.status === 'passed')} />
      <CheckList title="Skipped checks" checks={checks.filter((check) => check.status === 'skipped')} />
    </Panel>
  );
}

export function HealthView() {
  const read = useApi<HealthReport>('api/health', {}, REFRESH_MS);
  return (
    <View
      title="Health"
      summary="The router's checks on the fleet, most severe first, each with its fix. Read every 30 s."
      controls={
        <button type="button" class="secondary" onClick={read.reload} aria-busy={read.loading}>
          {read.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      }
    >
      <WithData read={read} what="the health report">
        {(report) => (
          <>
            <Score report={report} />
            <Vitals report={report} />
            <h2 class="visually-hidden">Findings</h2>
            <Findings findings={report.recommendations} />
            <Checks checks={report.checks} />
          </>
        )}
      </WithData>
    </View>
  );
}
