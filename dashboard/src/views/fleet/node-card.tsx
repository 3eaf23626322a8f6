/**
 * One node of the Fleet view: its status in words and colour (draining said so), memory, CPU and disk
 * meters, thermal state, the models it holds in memory with their context length and size, its sidecars
 * and versions — each only as far as the node reports it (a polled Ollama reports no hardware) — and
 * what it did today: its prefill and decode rates as it measured them, and its prompt-cache share.
 */
import type { ObservedRates } from '../../../../lib/core/analytics/observed-rates';
import type { FleetNodeEjection, FleetNodeStatus, FleetSidecarStatus } from '../../../../lib/core/views/fleet-status';
import { Meter } from '../../components/meter';
import { ScrollBox } from '../../components/scroll-box';
import * as format from '../../format';
import { cacheShareText } from './cache-share';

type Level = 'ok' | 'warn' | 'bad';

/** The status as a word and a badge colour; a draining node is offline on purpose and says so. */
export function statusOf(node: Pick<FleetNodeStatus, 'status' | 'draining'>): { text: string; level: Level } {
  if (node.draining) return { text: 'Draining', level: 'warn' };
  if (node.status === 'online') return { text: 'Online', level: 'ok' };
  if (node.status === 'degraded') return { text: 'Degraded', level: 'warn' };
  return { text: 'Offline', level: 'bad' };
}

const PRESSURE: Readonly<Record<string, Level>> = { normal: 'ok', warn: 'warn', critical: 'bad' };

function share(used: number, total: number): number | null {
  return total > 0 ? (used / total) * 100 : null;
}

function Memory({ memory }: { memory: FleetNodeStatus['memory'] }) {
  if (memory === null) return <Meter label="Memory" percent={null} />;
  const level = PRESSURE[memory.pressure] ?? 'ok';
  const pressure = memory.pressure === 'normal' ? '' : `, pressure ${memory.pressure}`;
  return (
    <Meter
      label="Memory"
      percent={share(memory.used_gb, memory.total_gb)}
      detail={`${format.decimal(memory.used_gb)} / ${format.gigabytes(memory.total_gb)}${pressure}`}
      level={level}
    />
  );
}

function Cpu({ cpu }: { cpu: FleetNodeStatus['cpu'] }) {
  if (cpu === null) return <Meter label="CPU" percent={null} />;
  const level: Level = cpu.utilization_pct >= 95 ? 'bad' : cpu.utilization_pct >= 85 ? 'warn' : 'ok';
  return (
    <Meter
      label="CPU"
      percent={cpu.utilization_pct}
      detail={`${format.percent(cpu.utilization_pct)} of ${format.count(cpu.cores_physical)} cores`}
      level={level}
    />
  );
}

function LoadedModels({ node }: { node: FleetNodeStatus }) {
  const { models_loaded: loaded, models_available: available } = node.ollama;
  const caption = `Loaded models on ${node.node_id}`;
  if (loaded.length === 0) {
    return (
      <p class="state">
        No model loaded
        {available.length > 0 ? ` (${format.count(available.length)} on disk)` : ''}.
      </p>
    );
  }
  return (
    <ScrollBox label={caption}>
      <table class="node-models">
        <thead>
          <tr>
            <th scope="col">Loaded model</th>
            <th scope="col" class="number">
              Context
            </th>
            <th scope="col" class="number">
              Size
            </th>
          </tr>
        </thead>
        <tbody>
          {loaded.map((model) => (
            <tr key={model.name}>
              <th scope="row">{model.name}</th>
              <td class="number">{format.count(model.context_length)}</td>
              <td class="number">{format.gigabytes(model.size_gb)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

const SIDECARS = [
  ['image', 'Image'],
  ['transcription', 'Transcription'],
  ['text_embedding', 'Text embedding / rerank'],
] as const;

/** Until when, why, and which router instance saw the failure (ejections are shared across instances). */
function ejectionWords(ejection: FleetNodeEjection | undefined): string {
  if (ejection === undefined || ejection.until === null) return '';
  const by = ejection.seen_by === null ? '' : ` (seen by instance ${ejection.seen_by})`;
  return `out of routing until ${format.dateTime(ejection.until)}: ${ejection.reason ?? 'failing'}${by}`;
}

function Sidecar({ name, sidecar }: { name: string; sidecar: FleetSidecarStatus }) {
  const models = sidecar.models_available.map((model) => model.name).join(', ');
  const ejected = sidecar.ejection?.ejected === true;
  return (
    <li>
      <span class="sidecar-name">{name}</span>{' '}
      <span
        class={`badge ${ejected ? 'badge-bad' : sidecar.busy ? 'badge-warn' : 'badge-ok'}`}
        title={ejected ? ejectionWords(sidecar.ejection) : undefined}
      >
        {ejected ? 'out of routing' : sidecar.busy ? 'busy' : 'idle'}
      </span>
      <span class="sidecar-models">{models === '' ? 'no models reported' : models}</span>
    </li>
  );
}

function Sidecars({ node }: { node: FleetNodeStatus }) {
  const present = SIDECARS.flatMap(([key, name]) => {
    const sidecar = node[key];
    return sidecar === undefined ? [] : [{ name, sidecar }];
  });
  if (present.length === 0) return null;
  return (
    <>
      <h4>Sidecars</h4>
      <ul class="sidecars">
        {present.map(({ name, sidecar }) => (
          <Sidecar key={name} name={name} sidecar={sidecar} />
        ))}
      </ul>
    </>
  );
}

/** Today's observed figures (UTC day, from the usage rollups); dashes until read or where nothing measured them. */
function Observed({ rates }: { rates: ObservedRates | undefined }) {
  const cache = cacheShareText(rates?.prompt_cache);
  const facts: [string, string, string?][] = [
    ['Prefill today', format.tokensPerSecond(rates?.prefill_tokens_per_second)],
    ['Decode today', format.tokensPerSecond(rates?.decode_tokens_per_second)],
    ['Prompt cache today', cache.value === format.NONE ? cache.value : `${cache.value} (${cache.kind})`, cache.hint],
  ];
  return (
    <dl class="node-facts node-observed">
      {facts.map(([name, value, hint]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd title={hint}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Facts({ node }: { node: FleetNodeStatus }) {
  const facts: [string, string][] = [[node.source === 'agent' ? 'Node agent' : 'Polled', node.url]];
  if (node.agent_version !== null) facts.push(['Agent', node.agent_version]);
  if (node.version !== null) facts.push(['Ollama', node.version]);
  if (node.hardware.chip !== null) facts.push(['Chip', node.hardware.chip]);
  if (node.thermal !== null) {
    const temperature = node.thermal.temperature_c === null ? '' : `, ${format.decimal(node.thermal.temperature_c)} °C`;
    facts.push(['Thermal', `${node.thermal.state}${temperature}`]);
  }
  facts.push([
    'Active requests',
    `${format.count(node.ollama.requests_active)} of ${format.count(node.ollama.num_parallel)} parallel`,
  ]);
  if (node.status !== 'online')
    facts.push(['Last seen', node.last_seen === null ? 'never answered' : format.ago(node.last_seen)]);
  return (
    <dl class="node-facts">
      {facts.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function NodeCard({ node, rates }: { node: FleetNodeStatus; rates: ObservedRates | undefined }) {
  const status = statusOf(node);
  const heading = `node-${node.node_id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const ejection = node.ejection?.ejected === true ? node.ejection : undefined;
  return (
    <article class={`card node-card node-${status.level}`} aria-labelledby={heading}>
      <header class="node-head">
        <h3 id={heading}>{node.node_id}</h3>
        <span class={`badge badge-${status.level}`}>{status.text}</span>
      </header>
      {node.status !== 'online' && node.last_error !== undefined && (
        <p class="node-error">Last error: {node.last_error}</p>
      )}
      {ejection !== undefined && (
        <p class="node-error">
          Out of routing until {format.dateTime(ejection.until)}: {ejection.reason ?? 'failing'}
          {ejection.seen_by !== null && <span class="node-ejection-by"> (seen by instance {ejection.seen_by})</span>}
        </p>
      )}
      <Memory memory={node.memory} />
      <Cpu cpu={node.cpu} />
      {node.disk !== null && (
        <Meter
          label="Disk"
          percent={share(node.disk.used_gb, node.disk.total_gb)}
          detail={`${format.decimal(node.disk.used_gb)} / ${format.gigabytes(node.disk.total_gb)}`}
        />
      )}
      <Facts node={node} />
      <Observed rates={rates} />
      <LoadedModels node={node} />
      <Sidecars node={node} />
    </article>
  );
}
