/**
 * The Health view (issue 23): the router's health report (`GET api/health`) — the 0–100 score and the
 * vitals of the last 24 h, then every finding grouped by severity (critical, warning, info) with what it
 * is about and how to fix it — read every 30 s and on demand.
 */
import './health.css';
import type { HealthFinding, Severity } from '../../../lib/core/health/health-finding';
import type { HealthReport } from '../../../lib/core/health/health-report';
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
          </>
        )}
      </WithData>
    </View>
  );
}
