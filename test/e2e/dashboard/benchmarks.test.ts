/**
 * The Benchmarks view in a real browser, against the demo fleet: a run started from the form shows a
 * progress bar that advances and live figures, is cancelled and listed as cancelled; a start while a run
 * started elsewhere is going is refused with a notice naming that run; a short run finished and selected
 * shows its report with charts; the view fits a phone.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { eventually, type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot, sidewaysOverflowPx } from './harness';

interface Run {
  run_id: string;
  status: string;
  model_types: string[];
  report: { per_model: Record<string, unknown> } | null;
}

let browser: Browser;
let router: RouterProcess;

const api = async <T>(path: string, body?: unknown): Promise<{ status: number; body: T }> => {
  const response = await fetch(`${router.url}/dashboard/api/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
};

beforeAll(async () => {
  [browser, router] = await Promise.all([launchBrowser(), startRouter({}, ['--demo'])]);
  // The demo's agents join and report their loaded models within a few polls.
  await eventually(async () => {
    const status = (await (await fetch(`${router.url}/fleet/status`)).json()) as { nodes: { status: string }[] };
    expect(status.nodes.filter((node) => node.status === 'online').length).toBeGreaterThanOrEqual(3);
  }, 20_000);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await router?.stop();
});

const progressValue = (page: Page) =>
  page
    .getByRole('progressbar', { name: 'Benchmark progress' })
    .evaluate((element) => Number(Reflect.get(element, 'value')));

/** Waits until the progress bar shows more than `seen` seconds. */
const progressAbove = (page: Page, seen: number) =>
  eventually(async () => expect(await progressValue(page)).toBeGreaterThan(seen), 10_000);

/** The table row of one run (its id is printed under its start time). */
const runRow = (page: Page, runId: string) => page.getByRole('row').filter({ hasText: runId });

async function startFromForm(page: Page, seconds: number): Promise<void> {
  await page.getByLabel('Duration (seconds)').fill(String(seconds));
  await page.getByRole('checkbox', { name: 'Chat' }).check();
  await page.getByRole('checkbox', { name: 'Embeddings' }).uncheck();
  await page.getByRole('checkbox', { name: 'Images' }).uncheck();
  await page.getByRole('button', { name: 'Start benchmark' }).click();
}

describe('the Benchmarks view', () => {
  it('starts a chat run from the form, shows it advancing, cancels it and lists it as cancelled', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/benchmarks`);
    await page.getByText('No benchmark has run yet').waitFor();
    expect(await page.getByLabel('Duration (seconds)').getAttribute('max')).toBe('840');
    expect(await page.getByLabel('Mode').inputValue()).toBe('default');

    await startFromForm(page, 20);
    await page.getByRole('heading', { name: 'Running now' }).waitFor();
    const { body: progress } = await api<Run>('benchmarks/progress');
    expect(progress.status).toBe('running');
    expect(progress.model_types).toEqual(['llm']);
    await page.getByText(progress.run_id).first().waitFor();

    // The bar advances and the figures fill as the run goes.
    await progressAbove(page, 0);
    await progressAbove(page, await progressValue(page));
    await page
      .locator('.stat', { has: page.getByText('Requests done', { exact: true }) })
      .locator('.stat-value')
      .filter({ hasNotText: /^0$/ })
      .waitFor({ timeout: 10_000 });
    expect(await page.getByRole('button', { name: 'Start benchmark' }).isDisabled()).toBe(true);
    await screenshot(page, 'benchmarks-running');
    await expect(accessibilityViolations(page)).resolves.toEqual([]);

    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('heading', { name: 'Running now' }).waitFor({ state: 'detached', timeout: 45_000 });
    await runRow(page, progress.run_id).getByText('Cancelled', { exact: true }).waitFor();
    expect((await api<{ data: Run }>(`benchmarks/${progress.run_id}`)).body.data.status).toBe('cancelled');
    expect(await page.getByRole('button', { name: 'Start benchmark' }).isEnabled()).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('refuses a start while a run started elsewhere goes, naming that run, and shows that run', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/benchmarks`);
    await page.getByRole('heading', { name: 'Past runs' }).waitFor();
    await page.getByRole('table').waitFor();
    await page.getByLabel('Duration (seconds)').fill('2');

    const started = await api<{ run_id: string }>('benchmarks/start', { duration: 2, model_types: ['embed'] });
    expect(started.status).toBe(200);
    await page.getByRole('button', { name: 'Start benchmark' }).click();
    const notice = page.getByRole('alert').filter({ hasText: 'already running' });
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toContain(started.body.run_id);
    await runRow(page, started.body.run_id).getByText('Complete', { exact: true }).waitFor({ timeout: 45_000 });
    // 409 is the browser reporting the refused start; nothing else may go wrong.
    expect(errors.filter((error) => !error.includes('409'))).toEqual([]);
    await context.close();
  }, 90_000);

  it('shows a finished run with its report and charts when it is selected', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/benchmarks`);
    await page.getByRole('table').waitFor();
    await startFromForm(page, 2);
    await page.getByRole('heading', { name: 'Running now' }).waitFor();
    const { body: progress } = await api<Run>('benchmarks/progress');
    const row = runRow(page, progress.run_id);
    await row.getByText('Complete', { exact: true }).waitFor({ timeout: 45_000 });
    await screenshot(page, 'benchmarks');

    await row.getByRole('button').click();
    expect(new URL(page.url()).searchParams.get('run')).toBe(progress.run_id);
    const report = page.getByRole('region', { name: 'Report' });
    const chart = report.getByRole('figure').filter({ hasText: 'Requests per second, per model' });
    await chart.locator('canvas').waitFor();
    const { body } = await api<{ data: Run }>(`benchmarks/${progress.run_id}`);
    const models = Object.keys(body.data.report?.per_model ?? {});
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) await report.getByRole('rowheader', { name: model, exact: true }).first().waitFor();
    await report.getByRole('figure').filter({ hasText: 'Latency p95, per model' }).locator('canvas').waitFor();
    await report.getByRole('meter', { name: 'Fleet' }).waitFor();
    await screenshot(page, 'benchmarks-report');
    await expect(accessibilityViolations(page)).resolves.toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    // The same report as a link, on a phone.
    const phone = await openPage(browser, { width: 390 });
    await phone.page.goto(`${router.url}/dashboard/benchmarks?run=${progress.run_id}`);
    await phone.page
      .getByRole('figure')
      .filter({ hasText: 'Requests per second, per model' })
      .locator('canvas')
      .waitFor();
    expect(await sidewaysOverflowPx(phone.page)).toBeLessThanOrEqual(0);
    await screenshot(phone.page, 'benchmarks-phone');
    await expect(accessibilityViolations(phone.page)).resolves.toEqual([]);
    expect(phone.errors).toEqual([]);
    await phone.context.close();
  }, 90_000);
});
