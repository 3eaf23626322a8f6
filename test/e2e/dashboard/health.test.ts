/**
 * The Health view in a real browser against the built emulator: a fleet with a listed node that never
 * answers shows the report's score and the critical finding with its fix, not the no-findings state,
 * and below it the checks that passed and those skipped (with why), collapsed until opened; a healthy
 * fleet shows the no-findings state; the refresh button reads the report again.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { CATALOG, type SimNode, startSimNode } from '../../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot, sidewaysOverflowPx } from './harness';

let browser: Browser;
let live: SimNode;
let troubled: RouterProcess;
let healthy: RouterProcess;

const NO_FINDINGS = 'No findings: every check passed.';

interface HealthBody {
  vitals: { health_score: number };
  recommendations: { check_id: string; severity: string; title: string; fix: string; node_id: string | null }[];
  checks: { id: string; title: string; status: string; reason: string | null }[];
}

/** A port nothing listens on: a node listed there never answers. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  live = await startSimNode({
    id: 'live',
    models: CATALOG.filter((entry) => entry.name === 'llama3.2:3b'),
    loaded: ['llama3.2:3b'],
  });
  const ghost = `http://127.0.0.1:${await deadPort()}`;
  [browser, troubled, healthy] = await Promise.all([
    launchBrowser(),
    startRouter({ FLEET_NODES: `live=${live.url},ghost=${ghost}` }),
    startRouter({ FLEET_NODES: `live=${live.url}` }),
  ]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([troubled?.stop(), healthy?.stop()]);
  await live?.close();
});

async function report(router: RouterProcess): Promise<HealthBody> {
  return (await (await fetch(`${router.url}/dashboard/api/health`)).json()) as HealthBody;
}

describe('the Health view', () => {
  it('shows the score and an offline node as a critical finding with its fix', async () => {
    // The report is cached for 10 s: wait until it has seen the ghost offline and the live node online.
    const body = await eventually(async () => {
      const read = await report(troubled);
      expect(read.recommendations.map((found) => found.check_id)).toEqual(['node_offline']);
      return read;
    }, 20_000);
    const offline = body.recommendations[0];

    const { page, errors, context } = await openPage(browser);
    await page.goto(`${troubled.url}/dashboard/health`);
    const critical = page.getByRole('region', { name: 'Critical (1)' });
    await critical.waitFor();
    await expect(critical.getByRole('heading', { name: 'ghost is offline' }).isVisible()).resolves.toBe(true);
    await expect(critical.getByText(`Fix: ${offline?.fix}`).isVisible()).resolves.toBe(true);
    await expect(critical.getByText('Node ghost', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByText(`${body.vitals.health_score} / 100`, { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByText(NO_FINDINGS).count()).resolves.toBe(0);
    await expect(
      page.getByRole('region', { name: 'Vitals, last 24 h' }).getByText('Nodes offline').isVisible(),
    ).resolves.toBe(true);

    // The checks that passed and those skipped are listed under the findings, collapsed.
    const checks = page.getByRole('region', { name: 'Checks' });
    const passed = body.checks.filter((check) => check.status === 'passed');
    const skipped = body.checks.filter((check) => check.status === 'skipped');
    expect(passed.length).toBeGreaterThan(10);
    expect(skipped.length).toBeGreaterThan(0);
    const passedList = checks.locator('details').filter({ hasText: `Passed checks (${passed.length})` });
    const firstPassed = passedList.getByText(passed[0]?.title ?? '?', { exact: true });
    await expect(firstPassed.isVisible()).resolves.toBe(false);
    await passedList.locator('summary').click();
    await expect(firstPassed.isVisible()).resolves.toBe(true);
    await expect(passedList.locator('li').count()).resolves.toBe(passed.length);
    // The check that failed is not among them.
    await expect(passedList.getByText('Nodes offline', { exact: true }).count()).resolves.toBe(0);
    const skippedList = checks.locator('details').filter({ hasText: `Skipped checks (${skipped.length})` });
    await skippedList.locator('summary').click();
    await expect(skippedList.getByText(`Not run: ${skipped[0]?.reason}.`).first().isVisible()).resolves.toBe(true);

    // The refresh button reads the report again.
    const again = page.waitForResponse((response) => response.url().endsWith('/dashboard/api/health'));
    await page.getByRole('button', { name: 'Refresh' }).click();
    expect((await again).status()).toBe(200);
    await screenshot(page, 'health');
    expect(await accessibilityViolations(page)).toEqual([]);

    const phone = await openPage(browser, { width: 390, height: 844 });
    await phone.page.goto(`${troubled.url}/dashboard/health`);
    await phone.page.getByRole('heading', { name: 'ghost is offline' }).waitFor();
    expect(await sidewaysOverflowPx(phone.page)).toBeLessThanOrEqual(0);
    await screenshot(phone.page, 'health-phone');
    expect(await accessibilityViolations(phone.page)).toEqual([]);

    expect(errors).toEqual([]);
    expect(phone.errors).toEqual([]);
    await Promise.all([context.close(), phone.context.close()]);
  }, 60_000);

  it('says so when every check passed', async () => {
    await eventually(async () => {
      const read = await report(healthy);
      expect(read.recommendations).toEqual([]);
      expect(read.vitals.health_score).toBe(100);
    }, 20_000);

    const { page, errors, context } = await openPage(browser);
    await page.goto(`${healthy.url}/dashboard/health`);
    await page.getByText(NO_FINDINGS).waitFor();
    await expect(page.getByText('100 / 100', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('region', { name: /^(Critical|Warning|Info) / }).count()).resolves.toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
