/**
 * The page follows its key (issue 46), in a real browser against a router with client, operator and node
 * keys: a client key sees Model management, Settings and Benchmarks read-only — no Pull, no Delete, no
 * switch, no Start — each with a line saying why; an operator key sees the controls and its settings
 * change goes through. A viewer may give an operator key from the line, and the controls appear.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { CATALOG, type SimAgent, startSimAgent } from '../../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot } from './harness';

const CLIENT_KEY = 'sk-viewer-1';
const OPERATOR_KEY = 'sk-operator-1';
const NODE_KEY = 'nk-roles-1';
const NODE = 'lab';
let browser: Browser;
let router: RouterProcess;
let agent: SimAgent;

beforeAll(async () => {
  [browser, router] = await Promise.all([
    launchBrowser(),
    startRouter({
      FLEET_API_KEYS: `viewer:${CLIENT_KEY}`,
      FLEET_ADMIN_KEYS: `ops:${OPERATOR_KEY}`,
      FLEET_NODE_KEYS: NODE_KEY,
      FLEET_TRANSCRIPTION: 'false',
    }),
  ]);
  agent = await startSimAgent({
    nodeId: NODE,
    routerUrl: router.url,
    intervalMs: 2000,
    nodeKey: NODE_KEY,
    ollamaOptions: { id: NODE, models: CATALOG.filter((entry) => entry.name === 'llama3.2:3b') },
  });
  await agent.sendHeartbeat();
  await eventually(async () => {
    const answer = await fetch(`${router.url}/api/tags`, { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
    const body = (await answer.json()) as { models: { name: string }[] };
    expect(body.models.map((model) => model.name)).toContain('llama3.2:3b');
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
  await router?.stop();
});

/** A page that holds `key` in this browser before its first call, as if the user had entered it before. */
async function pageWithKey(key: string) {
  const watched = await openPage(browser);
  await watched.context.addInitScript(`window.localStorage.setItem('fleet-router.api-key', ${JSON.stringify(key)})`);
  return watched;
}

async function view(page: Page, id: string): Promise<void> {
  await page.goto(`${router.url}/dashboard/${id}`);
}

const note = (page: Page) => page.getByRole('note').filter({ hasText: 'Read-only' });

describe('the page for a client key', () => {
  it('shows Model management, Settings and Benchmarks read-only, each saying why', async () => {
    const { page, errors, context } = await pageWithKey(CLIENT_KEY);

    await view(page, 'model-management');
    const node = page.getByRole('region', { name: new RegExp(`^${NODE} `) });
    await node.getByRole('table', { name: `Models on ${NODE}` }).waitFor();
    await note(page).waitFor();
    await expect(note(page).textContent()).resolves.toContain('Pulls and deletes need an operator key');
    expect(await node.getByRole('button', { name: 'Pull', exact: true }).count()).toBe(0);
    expect(await node.getByRole('button', { name: /^Delete / }).count()).toBe(0);
    await screenshot(page, 'roles-viewer-model-management');
    await expect(accessibilityViolations(page)).resolves.toEqual([]);

    await view(page, 'settings');
    await page.getByText('Image generation:').waitFor();
    await note(page).waitFor();
    expect(await page.getByRole('switch').count()).toBe(0);

    await view(page, 'benchmarks');
    await note(page).waitFor();
    expect(await page.getByRole('button', { name: 'Start benchmark' }).count()).toBe(0);

    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('takes an operator key from the line, and then shows the controls', async () => {
    const { page, errors, context } = await pageWithKey(CLIENT_KEY);
    await view(page, 'settings');
    await note(page).getByRole('button', { name: 'Use an operator key' }).click();
    const dialog = page.getByRole('dialog', { name: 'API key' });
    await dialog.getByLabel('Key').fill(OPERATOR_KEY);
    await dialog.getByRole('button', { name: 'Use this key' }).click();

    await page.getByRole('switch', { name: 'Image generation' }).waitFor();
    expect(await note(page).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe('the page for an operator key', () => {
  it('shows Pull, Delete, the switches and Start, and a settings change goes through', async () => {
    const { page, errors, context } = await pageWithKey(OPERATOR_KEY);

    await view(page, 'model-management');
    const node = page.getByRole('region', { name: new RegExp(`^${NODE} `) });
    await node.getByRole('button', { name: 'Pull', exact: true }).waitFor();
    await node.getByRole('button', { name: `Delete llama3.2:3b from ${NODE}` }).waitFor();
    expect(await note(page).count()).toBe(0);

    await view(page, 'benchmarks');
    await page.getByRole('button', { name: 'Start benchmark' }).waitFor();

    await view(page, 'settings');
    const toggle = page.getByRole('switch', { name: 'Speech-to-text' });
    await toggle.click();
    await page.getByRole('status').filter({ hasText: 'Speech-to-text is on: saved.' }).waitFor();
    const settings = await fetch(`${router.url}/dashboard/api/settings`, {
      headers: { authorization: `Bearer ${CLIENT_KEY}` },
    });
    expect(((await settings.json()) as { transcription: boolean }).transcription).toBe(true);
    await screenshot(page, 'roles-operator-settings');

    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
