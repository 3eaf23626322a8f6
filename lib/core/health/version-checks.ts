/**
 * Health checks on versions (issue 22 item 3): node agents or Ollama runtimes that disagree across the
 * fleet, runtimes older than the API level the router speaks (`/api/version` then reports the lower
 * one, and clients gate features on it), and nodes that never said their version. Offline nodes are
 * skipped. Silent on a fleet that runs one version of each. Pure.
 */
import type { NodeView } from '../fleet/node';
import { ROUTER_OLLAMA_API_VERSION } from '../views/api-version';
import { finding, type HealthChecks } from './health-finding';
import { noLiveNodeThat } from './skip-reasons';

const live = (nodes: readonly NodeView[]) => nodes.filter((node) => node.status !== 'offline');

function parts(version: string): number[] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Negative when `a` is older than `b`; undefined when either is not dotted. */
export function compareVersions(a: string, b: string): number | undefined {
  const left = parts(a);
  const right = parts(b);
  if (left === undefined || right === undefined) return undefined;
  for (let index = 0; index < 3; index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** Version → the nodes running it. */
function byVersion(nodes: readonly NodeView[], version: (node: NodeView) => string | undefined) {
  const groups = new Map<string, string[]>();
  for (const node of nodes) {
    const value = version(node);
    if (value === undefined) continue;
    groups.set(value, [...(groups.get(value) ?? []), node.id]);
  }
  return groups;
}

export const VERSION_CHECKS: HealthChecks = {
  agent_version_mismatch: {
    title: 'Node agents on one version',
    severity: 'warning',
    skip: noLiveNodeThat('reports an agent version', (node) => node.agentVersion !== undefined),
    run: ({ snapshot }) => {
      const groups = byVersion(live(snapshot.nodes), (node) => node.agentVersion);
      if (groups.size < 2) return [];
      return [
        finding('agent_version_mismatch', {
          severity: 'warning',
          title: `The node agents run ${groups.size} different versions`,
          description: `Node agents disagree on their version: ${[...groups].map(([version, ids]) => `${version} on ${ids.join(', ')}`).join('; ')}.`,
          fix: 'Upgrade every node agent to the same version.',
          data: { versions: Object.fromEntries(groups) },
        }),
      ];
    },
  },
  agent_version_unknown: {
    title: 'Node agents say their version',
    severity: 'info',
    skip: noLiveNodeThat('runs a node agent', (node) => node.source === 'agent'),
    run: ({ snapshot }) =>
      live(snapshot.nodes)
        .filter((node) => node.source === 'agent' && node.agentVersion === undefined)
        .map((node) =>
          finding('agent_version_unknown', {
            severity: 'info',
            title: `${node.id}'s agent did not say its version`,
            description: `${node.id} sends heartbeats without an agent version, so version mismatches cannot be seen.`,
            fix: 'Upgrade the node agent to one that reports agent_version.',
            nodeId: node.id,
          }),
        ),
  },
  ollama_version_mismatch: {
    title: 'Nodes on one Ollama version',
    severity: 'info',
    skip: noLiveNodeThat('reports its Ollama version', (node) => node.version !== undefined),
    run: ({ snapshot }) => {
      const groups = byVersion(live(snapshot.nodes), (node) => node.version);
      if (groups.size < 2) return [];
      return [
        finding('ollama_version_mismatch', {
          severity: 'info',
          title: `The nodes run ${groups.size} different Ollama versions`,
          description: `Ollama versions differ: ${[...groups].map(([version, ids]) => `${version} on ${ids.join(', ')}`).join('; ')}; /api/version reports the lowest.`,
          fix: 'Upgrade Ollama on the older nodes.',
          data: { versions: Object.fromEntries(groups) },
        }),
      ];
    },
  },
  ollama_version_old: {
    title: 'Ollama as new as the router speaks',
    severity: 'warning',
    skip: noLiveNodeThat('reports its Ollama version', (node) => node.version !== undefined),
    run: ({ snapshot }) =>
      live(snapshot.nodes).flatMap((node) => {
        const order = node.version === undefined ? undefined : compareVersions(node.version, ROUTER_OLLAMA_API_VERSION);
        if (order === undefined || order >= 0) return [];
        return [
          finding('ollama_version_old', {
            severity: 'warning',
            title: `${node.id} runs an old Ollama (${node.version})`,
            description: `${node.id} runs Ollama ${node.version}, older than the API level the router speaks (${ROUTER_OLLAMA_API_VERSION}); /api/version reports the older one and clients may turn features off.`,
            fix: `Upgrade Ollama on ${node.id} to ${ROUTER_OLLAMA_API_VERSION} or later.`,
            nodeId: node.id,
            data: { version: node.version ?? null, router_api_version: ROUTER_OLLAMA_API_VERSION },
          }),
        ];
      }),
  },
  // Listed nodes only: the router asks their /api/version itself, while node agents (as the reference's)
  // need not report it — an agent fleet would otherwise fire this on every node.
  ollama_version_unknown: {
    title: 'Listed nodes say their Ollama version',
    severity: 'info',
    skip: noLiveNodeThat('is a listed node', (node) => node.source === 'listed'),
    run: ({ snapshot }) =>
      live(snapshot.nodes)
        .filter((node) => node.source === 'listed' && node.version === undefined)
        .map((node) =>
          finding('ollama_version_unknown', {
            severity: 'info',
            title: `${node.id}'s Ollama version is unknown`,
            description: `${node.id} never answered the router's /api/version.`,
            fix: 'Check that /api/version answers on the node (an Ollama old enough not to have it needs an upgrade).',
            nodeId: node.id,
          }),
        ),
  },
};
