/**
 * Node records in the table (ARCHITECTURE.md §3.6: instances share node state through the table). One
 * item per node under `NODE / <id>`, the record as a JSON document. Reads are lenient: a corrupt item
 * is skipped and reported in one log line naming its key, so one bad write cannot hide the fleet.
 */
import type { NodeRecord } from '../../core/fleet/node';
import type { StoredItem } from './item';
import { NODE_PARTITION, nodeKey } from './keys';
import type { Table } from './table';

export interface NodeRepository {
  /** A direct, awaited put (node state changes rarely; routing reads the snapshot, not this). */
  put(record: NodeRecord): Promise<void>;
  get(id: string): Promise<NodeRecord | undefined>;
  /** Every readable node record, sorted by id. */
  list(): Promise<NodeRecord[]>;
}

export interface NodeRepositoryOptions {
  /** Where a skipped corrupt item is reported. Default: console.warn. */
  readonly log?: (line: string) => void;
}

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields routing cannot work without; optional fields are trusted as written by `put`. */
const REQUIRED: Readonly<Record<string, Check>> = {
  id: isString,
  source: (value) => value === 'listed' || value === 'agent',
  url: isString,
  firstSeenAt: isNumber,
  lastSeenAt: isNumber,
  draining: (value) => typeof value === 'boolean',
  hardware: isObject,
  models: Array.isArray,
  loaded: Array.isArray,
  recentlyUnloaded: isObject,
  requestsActive: isNumber,
  numParallel: isNumber,
  sidecars: isObject,
};

/** Why a value is not a node record, or undefined when it is one. */
function nodeRecordProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'doc is not an object';
  const bad = Object.entries(REQUIRED).find(([field, check]) => !check(value[field]));
  return bad === undefined ? undefined : `field "${bad[0]}" is missing or has the wrong type`;
}

function isNodeRecord(value: unknown): value is NodeRecord {
  return nodeRecordProblem(value) === undefined;
}

/** The record, or the reason it is not one. */
export function parseNodeRecord(item: StoredItem): NodeRecord | string {
  if (item.doc === undefined) return 'no doc attribute';
  let value: unknown;
  try {
    value = JSON.parse(item.doc);
  } catch (error) {
    return `doc is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!isNodeRecord(value)) return nodeRecordProblem(value) ?? 'not a node record';
  if (value.id !== item.sk) return `id "${value.id}" does not match the key`;
  return value;
}

export function createNodeRepository(table: Table, options: NodeRepositoryOptions = {}): NodeRepository {
  const log = options.log ?? ((line: string) => console.warn(line));

  const read = (item: StoredItem): NodeRecord | undefined => {
    const record = parseNodeRecord(item);
    if (typeof record !== 'string') return record;
    log(`store: skipping corrupt node record ${item.pk} / ${item.sk}: ${record}`);
    return undefined;
  };

  return {
    async put(record) {
      await table.putDoc({ ...nodeKey(record.id), doc: JSON.stringify(record) });
    },
    async get(id) {
      const { pk, sk } = nodeKey(id);
      const item = await table.getDoc(pk, sk);
      return item === undefined ? undefined : read(item);
    },
    async list() {
      const items = await table.queryDocs(NODE_PARTITION);
      return items.flatMap((item) => read(item) ?? []);
    },
  };
}
