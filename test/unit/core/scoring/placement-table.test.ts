import { describe, expect, it } from '@jest/globals';
import { placementTable } from '../../../../lib/core/scoring/placement-table';
import { agentNode, makeRequest, snapshotOf } from '../../../helpers/factories';
import { haveSameMap } from '../../../helpers/hidden-class';

describe('placementTable', () => {
  it('is built once per snapshot and model', () => {
    const snapshot = snapshotOf([agentNode({ id: 'a' })]);
    expect(placementTable(snapshot, 'llama3.2:3b')).toBe(placementTable(snapshot, 'llama3.2:3b'));
    expect(placementTable(snapshot, 'nope:1b')).toBeUndefined();
  });

  // A new snapshot (about once a second) builds new tables: if each had a hidden class of its own, the
  // ranking code that reads them on every request would go megamorphic and deoptimise again and again.
  // Built many times over, as a router does, so the builder runs optimised too.
  it('gives the tables of every snapshot one hidden class', () => {
    const nodes = [agentNode({ id: 'a' }), agentNode({ id: 'b' })];
    const tables = Array.from({ length: 2000 }, () => placementTable(snapshotOf(nodes), 'llama3.2:3b'));
    const first = tables[0] as object;
    expect(tables.every((table) => table !== undefined && haveSameMap(first, table))).toBe(true);
  });

  it('keeps one elimination profile per kind of request', () => {
    const table = placementTable(snapshotOf([agentNode({ id: 'a' })]), 'llama3.2:3b');
    const chat = table?.profile(makeRequest());
    expect(table?.profile(makeRequest())).toBe(chat);
    expect(table?.profile(makeRequest({ needsVision: true }))).not.toBe(chat);
    expect(chat?.eligible).toBe(1);
  });
});
