/**
 * The `/metrics` page's cache: scrapes within the max age share one read of the rollups, concurrent ones
 * share the read in flight, and a failed read is not kept.
 */
import { describe, expect, it } from '@jest/globals';
import { createMetricsPage, type MetricsDeps } from '../../../../lib/features/metrics/metrics-page';
import { makeNodeRecord, snapshotOf } from '../../../helpers/factories';

function countingDeps() {
  const counts = { totals: 0, failNext: false };
  const deps: MetricsDeps = {
    rollups: {
      async totals() {
        counts.totals += 1;
        if (counts.failNext) {
          counts.failNext = false;
          throw new Error('table unreachable');
        }
        return [];
      },
    },
    registry: { snapshot: async () => snapshotOf([makeNodeRecord()]) },
    queueView: async () => [],
  };
  return { deps, counts };
}

describe('createMetricsPage', () => {
  it('reads once per max age, and once for scrapes that arrive together', async () => {
    let now = 0;
    const { deps, counts } = countingDeps();
    const page = createMetricsPage(deps, { maxAgeMs: 5000, clock: () => now });

    const [first, second] = await Promise.all([page.text(), page.text()]);
    now = 4999;
    await page.text();
    const readsWithinAge = counts.totals;
    now = 5000;
    await page.text();

    expect(first).toBe(second);
    expect(first).toContain('fleet_node_status{node_id="gpu1",status="online"} 1\n');
    expect([readsWithinAge, counts.totals]).toEqual([1, 2]);
  });

  it('does not keep a failed read: the next scrape reads again', async () => {
    const { deps, counts } = countingDeps();
    counts.failNext = true;
    const page = createMetricsPage(deps, { clock: () => 0 });

    await expect(page.text()).rejects.toThrow('table unreachable');
    await expect(page.text()).resolves.toContain('# TYPE fleet_requests_total counter\n');
    expect(counts.totals).toBe(2);
  });
});
