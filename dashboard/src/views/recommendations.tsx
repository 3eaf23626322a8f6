/**
 * The Recommendations view (issue 23; anchor-ollama-herd §6.3, §6.5): from `GET api/recommendations`,
 * the fleet's summary and the demand it was fitted to (requests per category, top models, which nodes
 * cover each category, categories nothing covers), then per node its usable memory and disk, the models
 * it holds and the models advised for it with why.
 */

import { useState } from 'preact/hooks';
import type { NodeAdvice, Recommendation } from '../../../lib/core/recommendations/recommend';
import type { RecommendationsReport } from '../../../lib/core/recommendations/recommendations-report';
import { ScrollBox } from '../components/scroll-box';
import { Empty, WithData } from '../components/states';
import { Panel, Stat, View } from '../components/view';
import * as format from '../format';
import { useApi } from '../hooks';
import './recommendations.css';

interface RecommendationsAnswer extends RecommendationsReport {
  readonly cached: boolean;
  readonly cache_age_s: number;
}

const PRIORITY_LEVEL = { high: 'bad', medium: 'warn', low: 'ok' } as const;
const STATUS_LEVEL: Readonly<Record<string, 'ok' | 'warn' | 'bad'>> = { online: 'ok', degraded: 'warn' };

function RecommendationRows({ nodeId, picks }: { nodeId: string; picks: readonly Recommendation[] }) {
  return (
    <ScrollBox label={`Models advised for ${nodeId}`}>
      <table class="rec-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col">Category</th>
            <th scope="col" class="number">
              RAM
            </th>
            <th scope="col" class="number">
              Quality
            </th>
            <th scope="col">Priority</th>
            <th scope="col">Available</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {picks.map((pick) => (
            <tr key={pick.model}>
              <th scope="row">
                {pick.model}
                {pick.display_name !== pick.model && <div class="rec-sub">{pick.display_name}</div>}
              </th>
              <td>{pick.category}</td>
              <td class="number">
                {format.gigabytes(pick.ram_gb)}
                {pick.ram_estimated && <div class="rec-sub">estimated</div>}
              </td>
              <td class="number">{format.decimal(pick.quality_score)}</td>
              <td>
                <span class={`badge badge-${PRIORITY_LEVEL[pick.priority]}`}>{pick.priority}</span>
              </td>
              <td>
                {pick.already_available
                  ? pick.loaded
                    ? 'yes, loaded'
                    : 'yes, on disk'
                  : `no, ${format.gigabytes(pick.download_gb)} to download`}
              </td>
              <td class="rec-reason">{pick.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

function NodeCard({ node }: { node: NodeAdvice }) {
  const heading = `rec-node-${node.node_id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <section class="card" aria-labelledby={heading}>
      <h2 id={heading}>
        {node.node_id} <span class={`badge badge-${STATUS_LEVEL[node.status] ?? 'bad'}`}>{node.status}</span>
      </h2>
      <div class="stats">
        <Stat
          label="Usable RAM"
          value={format.gigabytes(node.usable_ram_gb)}
          hint={node.total_ram_gb === null ? 'not reported' : `of ${format.gigabytes(node.total_ram_gb)}`}
        />
        <Stat label="Largest model" value={format.gigabytes(node.single_model_cap_gb)} hint="RAM one model may take" />
        <Stat
          label="Disk free"
          value={format.gigabytes(node.disk_available_gb)}
          hint={node.disk_total_gb === null ? 'not reported' : `of ${format.gigabytes(node.disk_total_gb)}`}
        />
        <Stat
          label="Advised RAM"
          value={format.gigabytes(node.total_recommended_ram_gb)}
          hint={`headroom ${format.gigabytes(node.ram_headroom_gb)}`}
        />
        <Stat label="To download" value={format.gigabytes(node.download_gb)} />
      </div>
      <h3>Current models</h3>
      {node.current_models.length === 0 ? (
        <p class="state">None on disk.</p>
      ) : (
        <ul class="rec-models">
          {node.current_models.map((model) => (
            <li key={model}>{model}</li>
          ))}
        </ul>
      )}
      <h3>Recommended models</h3>
      {node.note !== undefined && <p class="notice notice-warn">{node.note}</p>}
      {node.recommendations.length === 0 ? (
        <p class="state">No advice for this node.</p>
      ) : (
        <RecommendationRows nodeId={node.node_id} picks={node.recommendations} />
      )}
    </section>
  );
}

function Usage({ report }: { report: RecommendationsAnswer }) {
  const categories = Object.entries(report.usage.category_breakdown).sort(([, a], [, b]) => b - a);
  const coverage = Object.entries(report.usage.category_coverage);
  return (
    <div class="grid">
      <Panel title="Demand by category">
        {categories.length === 0 ? (
          <Empty>No requests in the last 24 h: the advice follows the default category order.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Category</th>
                <th scope="col" class="number">
                  Requests, 24 h
                </th>
              </tr>
            </thead>
            <tbody>
              {categories.map(([category, requests]) => (
                <tr key={category}>
                  <th scope="row">{category}</th>
                  <td class="number">{format.count(requests)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      <Panel title="Top models">
        {report.usage.top_models.length === 0 ? (
          <Empty>No model served a request in the last 24 h.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Category</th>
                <th scope="col" class="number">
                  Requests, 24 h
                </th>
              </tr>
            </thead>
            <tbody>
              {report.usage.top_models.map((row) => (
                <tr key={row.model}>
                  <th scope="row">{row.model}</th>
                  <td>{row.category ?? format.NONE}</td>
                  <td class="number">{format.count(row.requests)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      <Panel title="Category coverage">
        {coverage.length === 0 ? (
          <Empty>No category is advised on any node yet.</Empty>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Category</th>
                <th scope="col">Advised on</th>
              </tr>
            </thead>
            <tbody>
              {coverage.map(([category, nodes]) => (
                <tr key={category}>
                  <th scope="row">{category}</th>
                  <td>{nodes.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </div>
  );
}

function Report({ report }: { report: RecommendationsAnswer }) {
  return (
    <>
      <div class="notice">
        <p>{report.fleet_summary}</p>
        <p class="rec-sub">
          Worked out {format.ago(report.generated_at)}
          {report.cached ? ' (kept for a minute)' : ''}; demand from {format.dateTime(report.demand_window.fleet_start)}{' '}
          to {format.dateTime(report.demand_window.end)}; {format.gigabytes(report.rules.reserve_gb)} kept free per
          node.
        </p>
      </div>
      {report.uncovered_categories.length > 0 && (
        <div class="notice notice-warn" role="status">
          <p>
            <strong>Uncovered categories:</strong> nothing fits for {report.uncovered_categories.join(', ')}.
          </p>
        </div>
      )}
      <div class="stats">
        <Stat label="Requests, 24 h" value={format.count(report.usage.total_requests_24h)} />
        <Stat label="Nodes advised" value={format.count(report.nodes.length)} />
        <Stat label="Uncovered categories" value={format.count(report.uncovered_categories.length)} />
      </div>
      <Usage report={report} />
      {report.nodes.length === 0 ? (
        <Empty>No node to advise: nodes appear here once they report their memory (agents) or are polled.</Empty>
      ) : (
        report.nodes.map((node) => <NodeCard key={node.node_id} node={node} />)
      )}
    </>
  );
}

export function RecommendationsView() {
  // The router keeps its answer a minute; "Work out again" asks it for a fresh one.
  const [fresh, setFresh] = useState(false);
  const read = useApi<RecommendationsAnswer>('api/recommendations', fresh ? { refresh: 1 } : {});
  const controls = (
    <button
      type="button"
      class="secondary"
      disabled={read.loading}
      onClick={() => (fresh ? read.reload() : setFresh(true))}
    >
      {read.loading ? 'Working out…' : 'Work out again'}
    </button>
  );
  return (
    <View
      title="Recommendations"
      summary="Which models each node should hold, fitted to its memory and the last 24 h of demand."
      controls={controls}
    >
      <WithData read={read} what="the recommendations">
        {(report) => <Report report={report} />}
      </WithData>
    </View>
  );
}
