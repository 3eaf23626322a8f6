/**
 * Node records in the table (ARCHITECTURE.md §3.6: instances share node state through the table). One
 * item per node under `NODE / <id>`, the record as a JSON document, and beside it the ejections
 * instances published of the node's services (./published-ejections, issue 45), which the fleet's one
 * Query reads back with the records. The record is written with an UpdateItem of its `doc`, so a
 * heartbeat or poll leaves a published ejection standing unless it names it as ended. Reads are
 * lenient: a corrupt item is skipped and reported in one log line naming its key, so one bad write
 * cannot hide the fleet.
 */
import type { Ejection } from '../../core/fleet/ejection';
import type { NodeRecord } from '../../core/fleet/node';
import type { StoredItem } from './item';
import { NODE_PARTITION, nodeKey } from './keys';
import { ejectionAttribute, ejectionValue, endedAttributes, publishedEjections } from './published-ejections';
import type { Table } from './table';

/** The fleet as one Query of the node partition returns it: the records and the published ejections. */
export interface FleetRead {
  readonly records: NodeRecord[];
  readonly ejections: Ejection[];
}

export interface NodeRepository {
  /**
   * A direct, awaited write of the record (node state changes rarely; routing reads the snapshot, not
   * this), removing in the same write the published ejections of the `ended` services.
   */
  put(record: NodeRecord, ended?: readonly Ejection[]): Promise<void>;
  get(id: string): Promise<NodeRecord | undefined>;
  /** Every readable node record, sorted by id. */
  list(): Promise<NodeRecord[]>;
  /** Every readable node record and every published ejection, in the one Query `list` makes. */
  listFleet(): Promise<FleetRead>;
  /** One UpdateItem onto the node's item; false when the node has no item (nothing written). */
  publishEjection(ejection: Ejection): Promise<boolean>;
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
    async put(record, ended = []) {
      const { pk, sk } = nodeKey(record.id);
      const remove = endedAttributes(ended);
      await table.updateFields(pk, sk, { doc: JSON.stringify(record), ...(remove.length > 0 ? { remove } : {}) });
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
    async listFleet() {
      const items = await table.queryDocs(NODE_PARTITION);
      const records: NodeRecord[] = [];
      const ejections: Ejection[] = [];
      for (const item of items) {
        const record = read(item);
        if (record === undefined) continue;
        records.push(record);
        if (Object.keys(item.attributes).length > 0) ejections.push(...publishedEjections(item));
      }
      return { records, ejections };
    },
    async publishEjection(ejection) {
      const { pk, sk } = nodeKey(ejection.nodeId);
      const set = { [ejectionAttribute(ejection)]: ejectionValue(ejection) };
      return table.updateFields(pk, sk, { set, ifExists: true });
    },
  };
}
