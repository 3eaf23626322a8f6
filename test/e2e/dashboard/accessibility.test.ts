/**
 * Every view of the dashboard page, accessible and usable on a laptop and a phone (issue 23 item 3), in
 * headless Chromium on the demo fleet (its traffic gives the views real data): axe-core finds no
 * violation of impact serious or critical, at 1280 and at 390 px wide (and in the dark scheme); at 390 px the page never scrolls
 * sideways (tables scroll in their own box); and the keyboard reaches the skip link and then the view
 * links from the top, and Enter on a view link shows that view. Written for whatever each view renders.
 * Behind FLEET_API_KEYS, the key prompt passes the same check and is answered with the keyboard alone.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { DASHBOARD_VIEWS } from '../../../lib/core/dashboard/views';
import { eventually, type RouterProcess, startRouter } from '../router-process';
import { launchBrowser, loadAxe, openPage, type WatchedPage } from './harness';

/** A laptop and a phone in the light scheme, and the laptop in the dark one (the page follows the system's). */
const CASES = [
  [1280, 'light'],
  [390, 'light'],
  [1280, 'dark'],
] as const;
const PHONE = 390;

const KEY = 'sk-a11y-1';
let browser: Browser;
let router: RouterProcess;
/** A router behind FLEET_API_KEYS, where the page opens on its key prompt. */
let keyed: RouterProcess;

beforeAll(async () => {
  [browser, router, keyed] = await Promise.all([
    launchBrowser(),
    startRouter({ FLEET_DEMO_TRAFFIC: 'true' }, ['--demo']),
    startRouter({ FLEET_API_KEYS: KEY, FLEET_NODE_KEYS: 'nk-a11y-1' }),
  ]);
  // The views open on a fleet with data: nodes online and the demo's first requests recorded.
  await eventually(async () => {
    const overview = (await (await fetch(`${router.url}/dashboard/api/overview`)).json()) as {
      nodes: { online: number };
      last_24h: { completed: number };
    };
    expect(overview.nodes.online).toBeGreaterThanOrEqual(3);
    expect(overview.last_24h.completed).toBeGreaterThanOrEqual(3);
  }, 30_000);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([router?.stop(), keyed?.stop()]);
});

interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: string; readonly html: string; readonly summary: string }[];
}

/**
 * axe-core run in the page (evaluated through the DevTools protocol: the page's CSP allows no inline
 * script, so it cannot be added as a script tag), its violations in plain data. The test files are
 * type-checked without the DOM's types, so the page's code is text.
 */
const RUN_AXE = `axe.run(document, { resultTypes: ['violations'] }).then((results) =>
  results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact ?? null,
    help: violation.help,
    nodes: violation.nodes.map((node) => ({
      target: node.target.join(' '),
      html: node.html.slice(0, 160),
      summary: (node.failureSummary ?? '').replace(/\\s+/g, ' ').slice(0, 300),
    })),
  })),
)`;

/**
 * How wide the page is against the window and, when wider, the elements that make it so: those reaching
 * past the right edge (by their box or their content), outside any box that scrolls or clips them.
 */
const MEASURE_OVERFLOW = `(() => {
  const width = window.innerWidth;
  const inScroller = (element) => {
    for (let up = element.parentElement; up !== null && up !== document.body; up = up.parentElement)
      if (getComputedStyle(up).overflowX !== 'visible') return true;
    return false;
  };
  const reach = (element) => {
    const box = element.getBoundingClientRect();
    const spills = element.scrollWidth > element.clientWidth && getComputedStyle(element).overflowX === 'visible';
    return Math.max(box.right, spills ? box.left + element.scrollWidth : 0);
  };
  const name = (element) => {
    const id = element.id === '' ? '' : '#' + element.id;
    const classes = typeof element.className === 'string' && element.className.trim() !== ''
      ? '.' + element.className.trim().split(/\\s+/).join('.') : '';
    return element.tagName.toLowerCase() + id + classes;
  };
  const out = [...document.querySelectorAll('body *')]
    .map((element) => ({ element, right: reach(element) }))
    .filter(({ element, right }) => right > width + 0.5 && !inScroller(element))
    .sort((a, b) => b.right - a.right)
    .slice(0, 5)
    .map(({ element, right }) => name(element) + ' (to ' + Math.round(right) + ' px)');
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, sticking_out: out };
})()`;

const FOCUSED = `(() => {
  const element = document.activeElement;
  return element === null ? null : { tag: element.tagName.toLowerCase(), text: (element.textContent ?? '').trim() };
})()`;

/** The violations an operator cannot work around, one readable paragraph each. */
function serious(violations: readonly AxeViolation[]): string[] {
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) =>
      [
        `${violation.impact}: ${violation.id} — ${violation.help}`,
        ...violation.nodes.map((node) => `  at ${node.target}: ${node.html}\n    ${node.summary}`),
      ].join('\n'),
    );
}

/** Opens a view by its address and waits until it has its heading and has read what it reads first. */
async function openView(page: Page, id: string, title: string): Promise<void> {
  await page.goto(`${router.url}/dashboard/${id}`);
  await page.locator('h1', { hasText: title }).waitFor();
  await page.locator('.live-badge[data-state="live"]').waitFor({ timeout: 10_000 });
  for (let settled = 0; settled < 2; settled++) {
    await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached', timeout: 10_000 });
    await page.waitForTimeout(250);
  }
}

describe.each(CASES)('the dashboard page at %i px wide, %s scheme', (width, colorScheme) => {
  let watched: WatchedPage;

  beforeAll(async () => {
    watched = await openPage(browser, { width });
    await watched.page.emulateMedia({ colorScheme });
  });

  afterAll(async () => {
    await watched?.context.close();
  });

  it.each(DASHBOARD_VIEWS.map((view) => [view.title, view.id] as const))(
    'shows %s with no serious or critical accessibility violation, no sideways scroll, no error',
    async (title, id) => {
      const { page, errors } = watched;
      const before = errors.length;
      await openView(page, id, title);
      await loadAxe(page);

      const violations = (await page.evaluate(RUN_AXE)) as AxeViolation[];
      const overflow =
        width === PHONE
          ? ((await page.evaluate(MEASURE_OVERFLOW)) as {
              scrollWidth: number;
              innerWidth: number;
              sticking_out: string[];
            })
          : undefined;

      // One verdict, so a failure lists every problem of the view at once.
      expect({
        accessibility: serious(violations),
        sideways: overflow === undefined || overflow.scrollWidth <= overflow.innerWidth ? 'none' : overflow,
        errors: errors.slice(before),
      }).toEqual({ accessibility: [], sideways: 'none', errors: [] });
    },
    60_000,
  );

  it('takes the keyboard from the top to the skip link, then to every view link, and Enter opens a view', async () => {
    const { page, errors } = watched;
    await openView(page, 'fleet', 'Fleet');

    await page.keyboard.press('Tab');
    await expect(page.evaluate(FOCUSED)).resolves.toEqual({ tag: 'a', text: 'Skip to content' });
    const reached: unknown[] = [];
    for (const _view of DASHBOARD_VIEWS) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(FOCUSED));
    }
    expect(reached).toEqual(DASHBOARD_VIEWS.map((view) => ({ tag: 'a', text: view.title })));

    // Back to the Health link, and Enter on it.
    const health = DASHBOARD_VIEWS.findIndex((view) => view.id === 'health');
    for (let step = DASHBOARD_VIEWS.length - 1; step > health; step--) await page.keyboard.press('Shift+Tab');
    await expect(page.evaluate(FOCUSED)).resolves.toEqual({ tag: 'a', text: 'Health' });
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: 'Health' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/health');
    expect(errors).toEqual([]);
  }, 60_000);

  it('moves the focus to the view with the skip link', async () => {
    const { page } = watched;
    await openView(page, 'trends', 'Trends');

    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');

    const inMain = await page.evaluate(`document.querySelector('main')?.contains(document.activeElement) ?? false`);
    expect(inMain).toBe(true);
  }, 60_000);
});

describe('the key prompt (FLEET_API_KEYS set)', () => {
  it('has no serious accessibility violation, takes the focus, and is answered with the keyboard alone', async () => {
    const { page, context, errors } = await openPage(browser, { width: PHONE });
    await page.goto(`${keyed.url}/dashboard/fleet`);
    const dialog = page.getByRole('dialog', { name: 'API key' });
    await dialog.waitFor();
    await loadAxe(page);

    const violations = (await page.evaluate(RUN_AXE)) as AxeViolation[];
    expect(serious(violations)).toEqual([]);
    await expect(page.evaluate(FOCUSED)).resolves.toEqual({ tag: 'input', text: '' });

    await page.keyboard.type(KEY);
    await page.keyboard.press('Enter');
    await page.locator('.live-badge[data-state="live"]').waitFor({ timeout: 10_000 });
    expect(await dialog.isVisible()).toBe(false);
    // The browser logs the 401s that brought the prompt up; nothing else.
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    await context.close();
  }, 60_000);
});
