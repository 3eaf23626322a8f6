import { describe, expect, it } from '@jest/globals';
import { emptyRollup, type Rollup } from '../../../../lib/core/analytics/rollup';
import { modelManagementView, type UsageRow } from '../../../../lib/features/model-management/model-management-view';
import { makeLoadedModel, makeNodeModel, makeNodeRecord, T0, viewOf } from '../../../helpers/factories';

const DAY = 86_400_000;
const WINDOWS = { days7StartMs: T0 - 6 * DAY, days30StartMs: T0 - 29 * DAY };

function rollup(requests: number, lastAt?: number): Rollup {
  const empty = emptyRollup();
  return {
    ...empty,
    counters: { ...empty.counters, requests },
    maxima: lastAt === undefined ? {} : { last_at: lastAt },
  };
}

const row = (model: string, startMs: number, requests: number, lastAt?: number): UsageRow => ({
  startMs,
  nodeId: 'gpu1',
  model,
  rollup: rollup(requests, lastAt),
});

describe('modelManagementView', () => {
  it('sorts loaded first, then the most recently used, then never used by name', () => {
    const node = viewOf(
      makeNodeRecord({
        models: ['a:1b', 'b:1b', 'c:1b', 'd:1b', 'e:1b'].map((name) => makeNodeModel({ name })),
        loaded: [makeLoadedModel({ name: 'e:1b' })],
      }),
    );
    const days = [row('b:1b', T0 - 2 * DAY, 1, T0 - 2 * DAY), row('d:1b', T0, 1, T0 + 1000)];

    const [managed] = modelManagementView([node], { days, totals: [] }, WINDOWS, T0 + 2000);

    expect(managed?.models.map((model) => model.name)).toEqual(['e:1b', 'd:1b', 'b:1b', 'a:1b', 'c:1b']);
  });

  it('counts the 7 and 30 day windows by UTC day, sums `foo` and `foo:latest`, and keeps all time apart', () => {
    const node = viewOf(makeNodeRecord({ models: [makeNodeModel({ name: 'm:latest' })], loaded: [] }));
    const days = [
      row('m:latest', T0, 3),
      row('m', T0 - 6 * DAY, 2),
      row('m:latest', T0 - 7 * DAY, 5),
      row('m:latest', T0 - 29 * DAY, 7),
      row('m:latest', T0 - 30 * DAY, 11),
    ];
    const totals = [row('m:latest', 0, 100)];

    const [managed] = modelManagementView([node], { days, totals }, WINDOWS, T0);

    expect(managed?.models[0]).toMatchObject({
      requests_7d: 5,
      requests_30d: 17,
      total_requests: 100,
      unused: false,
      last_used: null,
      days_unused: null,
    });
  });

  it('calls a model with no request in 7 days unused, and one never used too', () => {
    const node = viewOf(
      makeNodeRecord({ models: [makeNodeModel({ name: 'old:1b' }), makeNodeModel({ name: 'new:1b' })] }),
    );
    const days = [row('old:1b', T0 - 10 * DAY, 4, T0 - 10 * DAY)];

    const [managed] = modelManagementView([node], { days, totals: [] }, WINDOWS, T0);

    expect(managed?.models.map((model) => [model.name, model.unused, model.days_unused])).toEqual([
      ['old:1b', true, 10],
      ['new:1b', true, null],
    ]);
  });
});
