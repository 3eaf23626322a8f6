/**
 * The Settings view in a real browser: a runtime switch changes `GET /dashboard/api/settings` at once and
 * survives a reload, marked as set by an operator; its reset control clears the override, so the
 * environment's value applies again; a refused change is rolled back and said; the router's version
 * shows; a stored API key can be forgotten.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot, sidewaysOverflowPx } from './harness';

interface SettingsBody {
  image_generation: boolean;
  transcription: boolean;
  overridden: string[];
}

const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  version: string;
};

let browser: Browser;
let router: RouterProcess;

beforeAll(async () => {
  [browser, router] = await Promise.all([
    launchBrowser(),
    startRouter({
      FLEET_IMAGE_GENERATION: 'false',
      FLEET_TRANSCRIPTION: 'false',
      FLEET_ROUTING_STRATEGY: 'least-busy',
    }),
  ]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await router?.stop();
});

const settings = async (): Promise<SettingsBody> =>
  (await (await fetch(`${router.url}/dashboard/api/settings`)).json()) as SettingsBody;

describe('the Settings view', () => {
  it('switches image generation at once, keeps it over a reload, and shows it as set by an operator', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/settings`);
    const toggle = page.getByRole('switch', { name: 'Image generation' });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    const item = page.getByRole('listitem').filter({ has: toggle });
    await item.getByText('Follows the environment').waitFor();
    await page.getByText(version, { exact: true }).waitFor();

    await toggle.click();
    await page.getByRole('status').filter({ hasText: 'Image generation is on: saved.' }).waitFor();
    const changed = await settings();
    expect(changed.image_generation).toBe(true);
    expect(changed.overridden).toEqual(['image_generation']);
    expect(changed.transcription).toBe(false);
    await item.getByText('Set by an operator').waitFor();

    await page.reload();
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await item.getByText('Set by an operator').waitFor();
    await expect(item.textContent()).resolves.toContain('Environment default (FLEET_IMAGE_GENERATION): off');
    // The read-only configuration, grouped.
    await page.getByRole('heading', { name: 'Context', exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Routing', exact: true }).waitFor();
    // The routing strategy the environment set, read-only (no switch for it).
    const strategy = page.locator('.settings-config > div').filter({ hasText: 'FLEET_ROUTING_STRATEGY' });
    await expect(strategy.locator('dt').textContent()).resolves.toBe('Routing strategyFLEET_ROUTING_STRATEGY');
    await expect(strategy.locator('dd').textContent()).resolves.toMatch(/^least-busy /);
    await expect(strategy.getByRole('switch').count()).resolves.toBe(0);
    await page.getByText('none (the API is open)').waitFor();
    await screenshot(page, 'settings');
    await expect(accessibilityViolations(page)).resolves.toEqual([]);

    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('resets a setting an operator set to the environment value, over a reload too', async () => {
    const before = await settings();
    expect(before.overridden).toEqual(['image_generation']);
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/settings`);
    const toggle = page.getByRole('switch', { name: 'Image generation' });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    const item = page.getByRole('listitem').filter({ has: toggle });
    // Only the setting an operator set has the control.
    await expect(page.getByRole('button', { name: /^Reset / }).count()).resolves.toBe(1);

    await item.getByRole('button', { name: 'Reset Image generation to default (off)' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Image generation follows the environment again: off.' })
      .waitFor();

    expect(await toggle.isChecked()).toBe(false);
    await item.getByText('Follows the environment').waitFor();
    await expect(page.getByRole('button', { name: /^Reset / }).count()).resolves.toBe(0);
    const cleared = await settings();
    expect(cleared).toMatchObject({ image_generation: false, overridden: [] });
    await page.reload();
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);
    await item.getByText('Follows the environment').waitFor();
    await expect(accessibilityViolations(page)).resolves.toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('clears an override through the API with null, and refuses a value that is neither', async () => {
    const post = (body: unknown) =>
      fetch(`${router.url}/dashboard/api/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ transcription: true })).status).toBe(200);
    expect(await settings()).toMatchObject({ transcription: true, overridden: ['transcription'] });

    const cleared = await post({ transcription: null });
    const refused = await post({ transcription: 'default' });

    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toMatchObject({ transcription: false, overridden: [] });
    expect(refused.status).toBe(400);
    expect(await settings()).toMatchObject({ transcription: false, overridden: [] });
  });

  it('rolls a refused change back and says why', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.route('**/dashboard/api/settings', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: JSON.stringify({ error: { message: 'the table is not answering' } }),
          })
        : route.continue(),
    );
    await page.goto(`${router.url}/dashboard/settings`);
    const toggle = page.getByRole('switch', { name: 'Speech-to-text' });
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);

    await toggle.click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Speech-to-text was not changed: the table is not answering' })
      .waitFor();
    expect(await toggle.isChecked()).toBe(false);
    expect(await toggle.isEnabled()).toBe(true);
    expect((await settings()).transcription).toBe(false);
    // The browser reports the refused call itself; nothing else may go wrong.
    expect(errors.filter((error) => !error.includes('503'))).toEqual([]);
    await context.close();
  }, 60_000);

  it('forgets a stored API key', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/settings`);
    await page.getByRole('heading', { name: 'API key' }).waitFor();
    expect(await page.getByRole('button', { name: 'Forget API key' }).count()).toBe(0);
    await page.evaluate("window.localStorage.setItem('fleet-router.api-key', 'sk-kept')");
    await page.reload();

    await page.getByRole('button', { name: 'Forget API key' }).click();
    await page.getByRole('status').filter({ hasText: 'Forgotten' }).waitFor();
    expect(await page.evaluate("window.localStorage.getItem('fleet-router.api-key')")).toBeNull();
    expect(await page.getByRole('button', { name: 'Forget API key' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('fits a phone', async () => {
    const { page, errors, context } = await openPage(browser, { width: 390 });
    await page.goto(`${router.url}/dashboard/settings`);
    await page.getByRole('switch', { name: 'Image generation' }).waitFor();
    await page.getByRole('heading', { name: 'Storage and access' }).waitFor();
    expect(await sidewaysOverflowPx(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'settings-phone');
    await expect(accessibilityViolations(page)).resolves.toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
