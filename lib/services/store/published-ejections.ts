/**
 * Ejections published through the table (issue 45; ARCHITECTURE.md §3.6): an attribute on the ejected
 * node's own item, `ejection:<backend>:<at>` (`ejection:ollama:1764680000000`, …), holding the ejection
 * as JSON — when it was seen, until when it lasts, why, its level and cause, and the instance that saw
 * it. So the fleet snapshot's one Query of the `NODE` partition brings every ejection back with the
 * records: no read of its own, none per request. Publishing is one UpdateItem per ejection; the node's
 * next record write removes the attributes that are over or that its answer ended (no write of its
 * own). Each publication has a name of its own, so that write removes exactly the ones its instance read:
 * one another instance published meanwhile (a newer failure) stands. Items written before names carried
 * the time (`ejection:<backend>`) are still read, and removed with the service's newer ones. Reads are
 * lenient like the records': an attribute that does not parse is skipped.
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

/** The attribute of the node's item that holds one published ejection of one of its services. */
export function ejectionAttribute(ejection: Pick<Ejection, 'backend' | 'at'>): string {
  return `${PREFIX}${ejection.backend}:${Math.round(ejection.at)}`;
}

/** The attributes a record write removes for ejections it ended: each by its name, and the older form. */
export function endedAttributes(ended: readonly Pick<Ejection, 'backend' | 'at'>[]): string[] {
  const names = new Set<string>();
  for (const ejection of ended) {
    names.add(ejectionAttribute(ejection));
    names.add(`${PREFIX}${ejection.backend}`);
  }
  return [...names];
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
    const [backend = '', at] = name.slice(PREFIX.length).split(':');
    if (!BACKENDS.has(backend) || (at !== undefined && !/^\d+$/.test(at))) continue;
    const ejection = parseEjection(item.sk, backend as Backend, text);
    if (ejection !== undefined) ejections.push(ejection);
  }
  return ejections;
}
