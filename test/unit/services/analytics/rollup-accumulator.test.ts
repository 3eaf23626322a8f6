import { describe, expect, it } from '@jest/globals';
import { type AccumulatedTrace, createRollupAccumulator } from '../../../../lib/services/analytics/rollup-accumulator';
import { dayRollupKey, hourRollupKey, totalRollupKey } from '../../../../lib/services/store/keys';

const AT = Date.UTC(2026, 10, 26, 13, 5);

const trace = (overrides: Partial<AccumulatedTrace>): AccumulatedTrace => ({
  startedAt: AT,
  style: 'ollama-chat',
  status: 'completed',
  requestedModel: 'm',
  nodeId: 'n',
  latencyMs: 10,
  retries: 0,
  tags: [],
  ...overrides,
});

const requestsByKey = (writes: ReturnType<ReturnType<typeof createRollupAccumulator>['drain']>) =>
  Object.fromEntries(writes.map((write) => [`${write.pk} ${write.sk}`, write.counters['requests']]));

describe('createRollupAccumulator', () => {
  it('writes each rollup key once per drain, however many traces share it, and is empty afterwards', () => {
    const rollups = createRollupAccumulator();
    for (let index = 0; index < 100; index++) rollups.add(trace({ tags: ['app:a'] }));

    const writes = rollups.drain();

    const keys = [
      hourRollupKey(AT, { kind: 'fleet' }),
      hourRollupKey(AT, { kind: 'model', model: 'm' }),
      dayRollupKey(AT, { kind: 'node-model', nodeId: 'n', model: 'm' }),
      hourRollupKey(AT, { kind: 'node', nodeId: 'n' }),
      totalRollupKey('n', 'm'),
      dayRollupKey(AT, { kind: 'tag', tag: 'app:a' }),
    ];
    expect(requestsByKey(writes)).toEqual(Object.fromEntries(keys.map((key) => [`${key.pk} ${key.sk}`, 100])));
    expect(rollups.hasPending()).toBe(false);
    expect(rollups.drain()).toEqual([]);
  });

  it('keeps names apart that would read alike joined by its separator', () => {
    const rollups = createRollupAccumulator();
    rollups.add(trace({ tags: ['a\u0000b'] }));
    rollups.add(trace({ tags: ['a', 'b'] }));

    const tags = requestsByKey(rollups.drain());

    expect(tags[`${dayRollupKey(AT, { kind: 'tag', tag: 'a\u0000b' }).pk} TAG#a\u0000b`]).toBe(1);
    expect(tags[`${dayRollupKey(AT, { kind: 'tag', tag: 'a' }).pk} TAG#a`]).toBe(1);
    expect(tags[`${dayRollupKey(AT, { kind: 'tag', tag: 'b' }).pk} TAG#b`]).toBe(1);
  });

  it('names an empty model or node so its key is valid, and leaves out a trace whose time is no time', () => {
    const rollups = createRollupAccumulator();
    rollups.add(trace({ requestedModel: '', nodeId: '' }));
    rollups.add(trace({ startedAt: Number.NaN }));

    const writes = requestsByKey(rollups.drain());

    expect(writes[`${totalRollupKey('(empty)', '(empty)').pk} ${totalRollupKey('(empty)', '(empty)').sk}`]).toBe(1);
    expect(writes[`${hourRollupKey(AT, { kind: 'fleet' }).pk} ${hourRollupKey(AT, { kind: 'fleet' }).sk}`]).toBe(1);
  });
});
