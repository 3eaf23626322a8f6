/**
 * The dashboard page's frame in a real browser: `/dashboard` lands on the Fleet view, every view is a
 * link that shows its heading, the live feed connects, and behind FLEET_API_KEYS the page asks for the key
 * once, then sends it (the live feed included).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { DASHBOARD_VIEWS } from '../../../lib/core/dashboard/views';
import { type RouterProcess, startRouter } from '../router-process';
import { launchBrowser, openPage } from './harness';

const KEY = 'sk-dashboard-1';
let browser: Browser;
let open: RouterProcess;
let keyed: RouterProcess;

beforeAll(async () => {
  [browser, open, keyed] = await Promise.all([
    launchBrowser(),
    startRouter(),
    startRouter({ FLEET_API_KEYS: KEY, FLEET_NODE_KEYS: 'nk-1' }),
  ]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([open?.stop(), keyed?.stop()]);
});

describe('the dashboard page', () => {
  it('opens on the Fleet view, connects live, and moves between every view by its link', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${open.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/fleet');
    await expect(page.locator('h1').textContent()).resolves.toBe('Fleet');
    await page.locator('.live-badge[data-state="live"]').waitFor({ timeout: 10_000 });

    for (const view of DASHBOARD_VIEWS) {
      await page
        .getByRole('navigation', { name: 'Views' })
        .getByRole('link', { name: view.title, exact: true })
        .click();
      await expect(page.locator('h1').textContent()).resolves.toBe(view.title);
      expect(new URL(page.url()).pathname).toBe(`/dashboard/${view.id}`);
      expect(await page.title()).toBe(`${view.title} · Fleet Router`);
    }
    await page.goBack();
    await expect(page.locator('h1').textContent()).resolves.toBe(DASHBOARD_VIEWS.at(-2)?.title);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('asks for the API key once, keeps it, and sends it with every call, the live feed included', async () => {
    const { page, errors, context } = await openPage(browser);
    const sent: (string | null)[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/dashboard/events')) sent.push(request.headers()['authorization'] ?? null);
    });
    await page.goto(`${keyed.url}/dashboard/fleet`);
    const dialog = page.getByRole('dialog', { name: 'API key' });
    await dialog.waitFor();
    await dialog.getByLabel('Key').fill('sk-wrong');
    await dialog.getByRole('button', { name: 'Use this key' }).click();
    await expect(dialog.getByText('refused that key').waitFor()).resolves.toBeUndefined();
    await dialog.getByLabel('Key').fill(KEY);
    await dialog.getByRole('button', { name: 'Use this key' }).click();
    await page.locator('.live-badge[data-state="live"]').waitFor({ timeout: 10_000 });
    expect(sent).toContain(`Bearer ${KEY}`);

    // A reload uses the stored key: no prompt.
    await page.reload();
    await page.locator('.live-badge[data-state="live"]').waitFor({ timeout: 10_000 });
    expect(await dialog.isVisible()).toBe(false);
    // 401s are expected console noise from the browser before the key was entered; nothing else.
    expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    await context.close();
  }, 60_000);

  it('answers an unknown view with a 404 and serves the page without a key', async () => {
    const missing = await fetch(`${keyed.url}/dashboard/nope`);
    expect(missing.status).toBe(404);
    const page = await fetch(`${keyed.url}/dashboard/trends`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});
