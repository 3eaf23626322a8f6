/**
 * The configuration the router started with (read-only: the environment sets it, a restart changes it),
 * in groups an operator reads by: the listed nodes, routing, context handling, storage and access. A key
 * the page does not know yet still shows, under "Other".
 */
import { ScrollBox } from '../../components/scroll-box';
import { Panel } from '../../components/view';
import { count, duration } from '../../format';

interface Field {
  readonly key: string;
  readonly label: string;
  readonly env: string;
  /** Words for the value where the generic ones would say less (what unset or 0 means here). */
  readonly text?: (value: unknown) => string | undefined;
}

const offAtZero = (value: unknown) => (value === 0 ? '0 (off)' : undefined);
const emptyMeans = (meaning: string) => (value: unknown) =>
  value === null ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && value !== null && Object.keys(value).length === 0)
    ? meaning
    : undefined;

/** What each routing strategy does, in a few words (lib/core/scoring/routing-strategy). */
const STRATEGIES: Readonly<Record<string, string>> = {
  score: 'score (expected time to first token and the other signals; the best node wins)',
  'least-busy': 'least-busy (the node with the fewest requests in flight)',
  'round-robin': 'round-robin (the candidates in turn)',
  random: 'random (any candidate)',
};
const strategyText = (value: unknown) => (typeof value === 'string' ? (STRATEGIES[value] ?? value) : undefined);

const GROUPS: readonly {
  readonly title: string;
  readonly path: readonly string[];
  readonly fields: readonly Field[];
}[] = [
  {
    title: 'Routing',
    path: [],
    fields: [
      { key: 'routing_strategy', label: 'Routing strategy', env: 'FLEET_ROUTING_STRATEGY', text: strategyText },
      { key: 'poll_interval_ms', label: 'Poll interval', env: 'FLEET_POLL_INTERVAL_MS' },
      { key: 'max_retries', label: 'Retries on other nodes', env: 'FLEET_MAX_RETRIES' },
      { key: 'degraded_after_ms', label: 'Degraded after silence of', env: '' },
      { key: 'offline_after_ms', label: 'Offline after silence of', env: '' },
      {
        key: 'node_concurrency',
        label: 'Concurrency per node',
        env: 'FLEET_NODE_CONCURRENCY',
        text: emptyMeans("none set (each agent's reported parallelism, else 1)"),
      },
      { key: 'auto_route', label: 'Auto-route unknown models', env: 'FLEET_AUTO_ROUTE' },
      { key: 'model_map', label: 'Model map', env: 'FLEET_MODEL_MAP', text: emptyMeans('none') },
    ],
  },
  {
    title: 'Context',
    path: ['context'],
    fields: [
      {
        key: 'clear_trigger_tokens',
        label: 'Clear old tool results above (tokens)',
        env: 'FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS',
        text: offAtZero,
      },
      { key: 'clear_keep_recent', label: 'Tool results kept intact', env: 'FLEET_CONTEXT_CLEAR_KEEP_RECENT' },
      { key: 'compaction', label: 'Compaction', env: 'FLEET_CONTEXT_COMPACTION' },
      {
        key: 'compaction_budget_tokens',
        label: 'Compact above (tokens)',
        env: 'FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS',
      },
      {
        key: 'compaction_model',
        label: 'Compaction model',
        env: 'FLEET_CONTEXT_COMPACTION_MODEL',
        text: emptyMeans('unset (the largest loaded chat model)'),
      },
      { key: 'max_prompt_tokens', label: 'Largest prompt (tokens)', env: 'FLEET_MAX_PROMPT_TOKENS', text: offAtZero },
    ],
  },
  {
    title: 'Storage and access',
    path: [],
    fields: [
      { key: 'table', label: 'Table', env: 'FLEET_TABLE' },
      {
        key: 'api_keys',
        label: 'API keys accepted',
        env: 'FLEET_API_KEYS',
        text: (value) => (value === 0 ? 'none (the API is open)' : undefined),
      },
      {
        key: 'admin_keys',
        label: 'Operator keys accepted',
        env: 'FLEET_ADMIN_KEYS',
        text: (value) => (value === 0 ? 'none (changes open only while no client key is set)' : undefined),
      },
      {
        key: 'cors_origins',
        label: 'CORS origins',
        env: 'FLEET_CORS_ORIGINS',
        text: emptyMeans('unset (no CORS handling)'),
      },
    ],
  },
];

/** Keys shown elsewhere than by a field: the nodes (their own table) and the context group. */
const SHOWN_APART = new Set(['nodes', 'context']);

/** A configured value in words: unset, on/off, a duration for `_ms`, a count, a list or `name = value` pairs. */
export function configText(key: string, value: unknown): string {
  if (value === null || value === undefined) return 'unset';
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number') return key.endsWith('_ms') ? duration(value) : count(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((item) => configText('', item)).join(', ');
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0
      ? 'none'
      : entries.map(([name, item]) => `${name} = ${configText(name, item)}`).join(', ');
  }
  return String(value);
}

function at(config: Readonly<Record<string, unknown>>, path: readonly string[]): Readonly<Record<string, unknown>> {
  let found: unknown = config;
  for (const step of path) found = typeof found === 'object' && found !== null ? Reflect.get(found, step) : undefined;
  return typeof found === 'object' && found !== null ? (found as Record<string, unknown>) : {};
}

export function ConfigGroups({ config }: { config: Readonly<Record<string, unknown>> }) {
  const known = new Set([
    ...SHOWN_APART,
    ...GROUPS.filter((group) => group.path.length === 0).flatMap((group) => group.fields.map((field) => field.key)),
  ]);
  const other = Object.entries(config).filter(([key]) => !known.has(key));
  const nodes = Array.isArray(config['nodes']) ? (config['nodes'] as { id?: unknown; url?: unknown }[]) : [];
  return (
    <>
      <Panel title="Listed nodes">
        {nodes.length === 0 ? (
          <p class="settings-hint">None listed (FLEET_NODES): nodes join with their agents' heartbeats.</p>
        ) : (
          <ScrollBox label="Listed nodes">
            <table>
              <caption class="visually-hidden">Nodes the router polls (FLEET_NODES)</caption>
              <thead>
                <tr>
                  <th scope="col">Node</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {nodes.map((node) => (
                  <tr key={String(node.id)}>
                    <th scope="row">{String(node.id)}</th>
                    <td class="settings-url">{String(node.url)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        )}
      </Panel>
      <div class="grid settings-groups">
        {GROUPS.map((group) => {
          const values = at(config, group.path);
          return (
            <Panel key={group.title} title={group.title}>
              <dl class="settings-config">
                {group.fields.map((field) => (
                  <div key={field.key}>
                    <dt>
                      {field.label}
                      {field.env !== '' && <span class="settings-env">{field.env}</span>}
                    </dt>
                    <dd>{field.text?.(values[field.key]) ?? configText(field.key, values[field.key])}</dd>
                  </div>
                ))}
              </dl>
            </Panel>
          );
        })}
        {other.length > 0 && (
          <Panel title="Other">
            <dl class="settings-config">
              {other.map(([key, value]) => (
                <div key={key}>
                  <dt>{key}</dt>
                  <dd>{configText(key, value)}</dd>
                </div>
              ))}
            </dl>
          </Panel>
        )}
      </div>
    </>
  );
}
