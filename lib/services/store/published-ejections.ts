/**
 * Ejections published through the table (issue 45; ARCHITECTURE.md §3.6): an attribute on the ejected
 * node's own item, `ejection:<backend>` (`ejection:ollama`, `ejection:image`, …), holding the ejection
 * as JSON — when it was seen, until when it lasts, why, its level and cause, and the instance that saw
 * it. So the fleet snapshot's one Query of the `NODE` partition brings every ejection back with the
 * records: no read of its own, none per request. Publishing is one UpdateItem per ejection; the node's
 * next record write removes the attributes that are over or that its answer ended (no write of its
 * own). Reads are lenient like the records': an attribute that does not parse is skipped.
 */
import type { Backend, Ejection, FailureCause } from '../../core/fleet/ejection';
import type { StoredItem } from './item';

const PREFIX = 'ejection:';

const BACKENDS: ReadonlySet<string> = new Set<Backend>(['ollama', 'image', 'transcription', 'text-embedding']);
const CAUSES: ReadonlySet<string> = new Set<FailureCause>([
  'connect',
  'first-byte-timeout',
  'poll',
  'transport',
  'server-error',
]);

/** The attribute of the node's item that holds the published ejection of one of its services. */
export function ejectionAttribute(backend: Backend): string {
  return `${PREFIX}${backend}`;
}

/** The attribute's value: the ejection without the node id and service, which the item and name say. */
export function ejectionValue(ejection: Ejection): string {
  const { at, until, reason, level, cause, by } = ejection;
  return JSON.stringify({ at, until, reason, level, cause, ...(by !== undefined ? { by } : {}) });
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function parseEjection(nodeId: string, backend: Backend, text: string): Ejection | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { at, until, reason, level, cause, by } = value as Record<string, unknown>;
  if (!isNumber(at) || !isNumber(until) || !isNumber(level) || typeof reason !== 'string') return undefined;
  if (typeof cause !== 'string' || !CAUSES.has(cause)) return undefined;
  return {
    nodeId,
    backend,
    at,
    until,
    reason,
    level,
    cause: cause as FailureCause,
    ...(typeof by === 'string' ? { by } : {}),
  };
}

/** The ejections published on a node's item (its sort key is the node id). */
export function publishedEjections(item: StoredItem): Ejection[] {
  const ejections: Ejection[] = [];
  for (const [name, text] of Object.entries(item.attributes)) {
    if (!name.startsWith(PREFIX) || typeof text !== 'string') continue;
    const backend = name.slice(PREFIX.length);
    if (!BACKENDS.has(backend)) continue;
    const ejection = parseEjection(item.sk, backend as Backend, text);
    if (ejection !== undefined) ejections.push(ejection);
  }
  return ejections;
}
