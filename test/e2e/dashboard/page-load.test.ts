/**
 * The dashboard page's load on the demo fleet (issue 23 budgets), in headless Chromium: every request
 * the page makes goes to the router's own origin (nothing from a CDN — the page works with no internet),
 * and the time from navigation start to the first contentful paint and to the Fleet view showing a node
 * of the demo fleet is measured and written to test-output/page-timing.json. The times are recorded and
 * printed, not asserted: a shared CI machine's timing is no verdict.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { type RouterProcess, startRouter } from '../router-process';
import { launchBrowser, openPage } from './harness';

const root = join(__dirname, '..', '..', '..');
const TIMING = join(root, 'test-output', 'page-timing.json');
/** A node of the demo fleet (emulator/sim/fleet): its id on the page means the Fleet view has the fleet's data. */
const DEMO_NODE = 'gpu-large';

let browser: Browser;
let router: RouterProcess;

beforeAll(async () => {
  [browser, router] = await Promise.all([launchBrowser(), startRouter({ FLEET_DEMO_TRAFFIC: 'true' }, ['--demo'])]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await router?.stop();
});

/**
 * Runs in the page before its own script (the tests are type-checked without the DOM's types, so the
 * page's code is text): notes performance.now() when the main region first names the demo node.
 */
const WATCH_FOR_NODE = `(() => {
  const check = () => {
    if (window.nodeShownAt !== undefined) return;
    if (document.querySelector('main')?.textContent?.includes(${JSON.stringify(DEMO_NODE)})) {
      window.nodeShownAt = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

/** The page's own timing, read in the page: navigation, first contentful paint, the node's appearance. */
const READ_TIMING = `(() => {
  const [navigation] = performance.getEntriesByType('navigation');
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const round = (value) => (value === undefined ? null : Math.round(value));
  return {
    first_contentful_paint_ms: round(paint?.startTime),
    dom_content_loaded_ms: round(navigation?.domContentLoadedEventEnd),
    load_event_ms: round(navigation?.loadEventEnd),
    fleet_node_shown_ms: round(window.nodeShownAt),
    transferred_bytes: performance
      .getEntriesByType('resource')
      .reduce((sum, entry) => sum + entry.transferSize, navigation?.transferSize ?? 0),
  };
})()`;

interface Timing {
  readonly first_contentful_paint_ms: number | null;
  readonly dom_content_loaded_ms: number | null;
  readonly load_event_ms: number | null;
  readonly fleet_node_shown_ms: number | null;
  readonly transferred_bytes: number;
}

describe('the dashboard page’s load', () => {
  it('loads everything from the router’s own origin, nothing from elsewhere', async () => {
    const { page, context, errors } = await openPage(browser);
    const requested: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith('data:')) requested.push(request.url());
    });

    await page.goto(`${router.url}/dashboard/fleet`);
    await page.locator('.live-badge[data-state="live"]').waitFor({ timeout: 10_000 });

    const origin = new URL(router.url).origin;
    expect(requested.length).toBeGreaterThanOrEqual(3);
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(requested.some((url) => /\/dashboard\/assets\/app-[\w-]+\.js$/.test(url))).toBe(true);
    expect(requested.some((url) => /\/dashboard\/assets\/app-[\w-]+\.css$/.test(url))).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('measures the first paint and the Fleet view’s first node, and writes them down', async () => {
    const { page, context, errors } = await openPage(browser);
    await page.addInitScript({ content: WATCH_FOR_NODE });
    // Let the demo fleet join and send its first traffic, so the page opens on a fleet with data.
    await fetch(`${router.url}/fleet/status`);

    await page.goto(`${router.url}/dashboard/fleet`);
    await page.waitForFunction(() => 'nodeShownAt' in globalThis, undefined, { timeout: 15_000 });
    const figures = (await page.evaluate(READ_TIMING)) as Timing;
    const record = { measured_at: new Date().toISOString(), url: '/dashboard/fleet', fleet: 'demo', ...figures };
    mkdirSync(join(root, 'test-output'), { recursive: true });
    writeFileSync(TIMING, `${JSON.stringify(record, null, 2)}\n`);
    console.log(`dashboard page timing (${TIMING}):\n${JSON.stringify(record, null, 2)}`);

    expect(figures.first_contentful_paint_ms).not.toBeNull();
    expect(figures.fleet_node_shown_ms).not.toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
