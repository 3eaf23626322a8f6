/**
 * `GET /api/version` (spec §4.4, protocols §2.11): a plain dotted version. Clients gate features on it
 * (Copilot refuses < 0.6.4; Open WebUI parses each dotted part), so the router reports the Ollama API
 * level the whole fleet supports — the lowest version among the nodes that can take work — and,
 * with no such node, the level the router itself speaks.
 */
import type { FleetSnapshot } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';

/** The Ollama API level the router's own endpoints follow. */
export const ROUTER_OLLAMA_API_VERSION = '0.12.6';

const dotted = /^(\d+)\.(\d+)\.(\d+)/;

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

export function ollamaApiVersion(snapshot: FleetSnapshot): string {
  let lowest: number[] | undefined;
  for (const node of snapshot.nodes) {
    if (!isPlaceable(node) || node.version === undefined) continue;
    const match = dotted.exec(node.version);
    if (match === null) continue;
    const parts = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (lowest === undefined || compareVersions(parts, lowest) < 0) lowest = parts;
  }
  return lowest === undefined ? ROUTER_OLLAMA_API_VERSION : lowest.join('.');
}
