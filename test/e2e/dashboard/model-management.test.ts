/**
 * The Model management view in a real browser, against a simulated node agent whose pulls step slowly
 * enough to watch: the node's models render with their disk; a pull's progress bar fills from the
 * NDJSON lines to done and the model then shows in the node's table; a pull the node's registry cannot
 * serve shows its error; Delete asks first — Cancel keeps the model, Confirm removes it from the table
 * and from `/api/tags` — with no console error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { CATALOG, type SimAgent, startSimAgent } from '../../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot, sidewaysOverflowPx } from './harness';

const NODE = 'lab';
const PULLED = 'llama3.2:1b';
const DELETED = 'qwen3:8b';
let browser: Browser;
let router: RouterProcess;
let agent: SimAgent;

/** The names `/api/tags` lists across the fleet. */
async function tags(): Promise<string[]> {
  const body = (await (await fetch(`${router.url}/api/tags`)).json()) as { models: { name: string }[] };
  return body.models.map((model) => model.name);
}

beforeAll(async () => {
  [browser, router] = await Promise.all([launchBrowser(), startRouter()]);
  agent = await startSimAgent({
    nodeId: NODE,
    routerUrl: router.url,
    intervalMs: 2000,
    totalGb: 64,
    ollamaOptions: {
      id: NODE,
      models: CATALOG.filter((entry) => ['llama3.2:3b', DELETED].includes(entry.name)),
      loaded: ['llama3.2:3b'],
      // Slow enough that the page sees the bar at several points (about 15 lines, 4 s).
      pullStepMs: 250,
    },
  });
  await agent.sendHeartbeat();
  await eventually(async () => expect(await tags()).toEqual(expect.arrayContaining(['llama3.2:3b', DELETED])));
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await router?.stop();
});

/** Records every value and max the page's progress bar takes, from now on. */
async function watchProgress(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    const seen = (window.__progress = []);
    new MutationObserver(() => {
      const bar = document.querySelector('progress');
      if (bar === null) return;
      const last = seen[seen.length - 1];
      if (last === undefined || last[0] !== bar.value || last[1] !== bar.max) seen.push([bar.value, bar.max]);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  })()`);
}

describe('the Model management view', () => {
  it("lists the node's models, pulls one with a progress bar to done, and shows it in the table", async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/model-management`);
    const node = page.getByRole('region', { name: new RegExp(`^${NODE} `) });
    const table = node.getByRole('table', { name: `Models on ${NODE}` });
    await table.getByRole('rowheader', { name: new RegExp(`^${DELETED}`) }).waitFor();
    await expect(table.getByRole('rowheader', { name: new RegExp(`^${PULLED}`) }).count()).resolves.toBe(0);
    await screenshot(page, 'model-management');
    expect(await accessibilityViolations(page)).toEqual([]);

    await watchProgress(page);
    await node.getByLabel(`Model to pull onto ${NODE}`).fill(PULLED);
    await node.getByRole('button', { name: 'Pull', exact: true }).click();
    await node.getByText(`Done: ${PULLED} is on ${NODE}.`).waitFor({ timeout: 20_000 });
    const bar = node.getByRole('progressbar', { name: `Pull of ${PULLED} onto ${NODE}` });
    const [value, max] = await bar.evaluate((element: { value: number; max: number }) => [element.value, element.max]);
    expect(value).toBe(max);
    const seen = (await page.evaluate('window.__progress')) as [number, number][];
    const values = seen.map(([completed]) => completed);
    // The bytes done only grow, through at least two points between nothing and all.
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values.filter((completed) => completed > 0 && completed < max).length).toBeGreaterThanOrEqual(2);
    expect(values.at(-1)).toBe(max);

    await table.getByRole('rowheader', { name: new RegExp(`^${PULLED}`) }).waitFor();
    expect(await tags()).toContain(PULLED);
    await screenshot(page, 'model-management-pull');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows the error of a pull the registry cannot serve, and of one already under way', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/model-management`);
    const node = page.getByRole('region', { name: new RegExp(`^${NODE} `) });
    const field = node.getByLabel(`Model to pull onto ${NODE}`);
    const alert = node.getByRole('alert');
    await field.fill('missing/nothing');
    await node.getByRole('button', { name: 'Pull', exact: true }).click();
    await alert.waitFor({ timeout: 10_000 });
    await expect(alert.textContent()).resolves.toContain('file does not exist');

    // Another client pulls gemma3:12b (its lines 250 ms apart): the page's pull of it is refused with a 409.
    const other = await fetch(`${router.url}/dashboard/api/pull`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ node_id: NODE, model: 'gemma3:12b' }),
    });
    expect(other.status).toBe(200);
    await field.fill('gemma3:12b');
    await node.getByRole('button', { name: 'Pull', exact: true }).click();
    await alert.getByText("model 'gemma3:12b' is already being pulled").waitFor({ timeout: 10_000 });
    await other.text();
    expect(errors.filter((error) => !error.includes('409'))).toEqual([]);
    await context.close();
  }, 30_000);

  it('deletes a model only once confirmed', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/model-management`);
    const node = page.getByRole('region', { name: new RegExp(`^${NODE} `) });
    const row = node.getByRole('rowheader', { name: new RegExp(`^${DELETED}`) });
    await row.waitFor();
    const dialog = page.getByRole('dialog', { name: 'Delete model' });

    await node.getByRole('button', { name: `Delete ${DELETED} from ${NODE}` }).click();
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain(`Delete ${DELETED} from ${NODE}?`);
    expect(await accessibilityViolations(page)).toEqual([]);
    // Cancel has the focus: Enter on it (the keyboard's way) keeps the model.
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'hidden' });
    await expect(row.count()).resolves.toBe(1);
    expect(await tags()).toContain(DELETED);

    await node.getByRole('button', { name: `Delete ${DELETED} from ${NODE}` }).click();
    await dialog.getByRole('button', { name: 'Confirm delete' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('status').getByText(`Deleted ${DELETED} from ${NODE}.`).waitFor();
    await row.waitFor({ state: 'detached' });
    expect(await tags()).not.toContain(DELETED);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  it('fits a phone', async () => {
    const { page, errors, context } = await openPage(browser, { width: 390 });
    await page.goto(`${router.url}/dashboard/model-management`);
    await page.getByRole('table', { name: `Models on ${NODE}` }).waitFor();
    expect(await sidewaysOverflowPx(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'model-management-phone');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});
