/**
 * The analytics views in a real browser (issue 23: Trends, Models, Tags, Context) against the demo fleet:
 * chat sent through the router to two models, by OpenAI's and Ollama's APIs, with two tags and a
 * context size, shows up in each view with the counts the API gives; the Trends range picker asks for
 * 30 days of hours and keeps the range in the URL across a reload; the Models table sorts by a column.
 * Every view renders without a console error, fits a phone's width, passes axe's serious and critical
 * checks, and leaves a screenshot under test-output/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { MIN_SIZING_REQUESTS } from '../../../lib/core/analytics/context-usage';
import { eventually, type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot, sidewaysOverflowPx } from './harness';

const BIG = 'qwen3:8b';
const SMALL = 'llama3.2:3b';
const ALPHA = 'analytics-alpha';
const BETA = 'analytics-beta';
const NUM_CTX = 8192;
/** Requests sent: BIG 3 (OpenAI, ALPHA); SMALL 2 by Ollama (BETA, num_ctx) and 2 by OpenAI (ALPHA). */
const SENT = { [BIG]: 3, [SMALL]: 4 } as const;
const TAGGED = { [ALPHA]: 5, [BETA]: 2 } as const;

/** Numbers as the page writes them (Chromium's default locale is en-US). */
const number = (value: number) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(value);

let browser: Browser;
let router: RouterProcess;

async function readApi<T>(path: string): Promise<T> {
  const reply = await fetch(`${router.url}/dashboard/${path}`);
  expect(reply.status).toBe(200);
  return (await reply.json()) as T;
}

async function openAIChat(model: string, tags: string, content: string): Promise<void> {
  const reply = await fetch(`${router.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-tags': tags },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }] }),
  });
  expect(reply.status).toBe(200);
  await reply.json();
}

async function ollamaChat(model: string, tag: string, content: string): Promise<void> {
  const reply = await fetch(`${router.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content }],
      stream: false,
      options: { num_ctx: NUM_CTX },
      metadata: { tags: [tag] },
    }),
  });
  expect(reply.status).toBe(200);
  await reply.json();
}

beforeAll(async () => {
  [browser, router] = await Promise.all([launchBrowser(), startRouter({}, ['--demo'])]);
  await eventually(async () => {
    const { models } = (await (await fetch(`${router.url}/api/tags`)).json()) as { models: { name: string }[] };
    const names = models.map((model) => model.name);
    expect(names).toEqual(expect.arrayContaining([BIG, SMALL]));
  }, 30_000);

  for (let i = 0; i < SENT[BIG]; i++) await openAIChat(BIG, ALPHA, `how busy is the fleet, question ${i}`);
  for (let i = 0; i < 2; i++) await ollamaChat(SMALL, BETA, `summarise the context of request ${i} in a few words`);
  for (let i = 0; i < 2; i++) await openAIChat(SMALL, ALPHA, `a short answer please, ${i}`);

  // The rollups are written behind the requests: wait until every view's API counts all of them.
  await eventually(async () => {
    const models = await readApi<{ summary: { model_name: string; total_requests: number }[] }>('api/models');
    const counts = Object.fromEntries(models.summary.map((model) => [model.model_name, model.total_requests]));
    expect(counts).toEqual(SENT);
    const apps = await readApi<{ data: { tag: string; request_count: number }[] }>('api/apps');
    expect(Object.fromEntries(apps.data.map((tag) => [tag.tag, tag.request_count]))).toEqual(TAGGED);
    const trends = await readApi<{ data: { request_count: number }[] }>('api/trends');
    expect(trends.data.reduce((total, hour) => total + hour.request_count, 0)).toBe(SENT[BIG] + SENT[SMALL]);
    const context = await readApi<{ models: { model: string; request_count: number }[] }>('api/context-usage');
    expect(context.models.find((model) => model.model === SMALL)?.request_count).toBe(SENT[SMALL]);
  }, 30_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await router?.stop();
});

/** Opens `view` at a phone's width: it renders, nothing is wider than the screen (wide tables scroll in a box a keyboard reaches), and a screenshot is kept. */
async function checkPhone(view: string, ready: (page: Page) => Promise<void>): Promise<void> {
  const { page, errors, context } = await openPage(browser, { width: 390, height: 844 });
  await page.goto(`${router.url}/dashboard/${view}`);
  await ready(page);
  const overflow = await sidewaysOverflowPx(page);
  expect(overflow).toBeLessThanOrEqual(0);
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, `${view}-phone`);
  expect(errors).toEqual([]);
  await context.close();
}

/** The headline figure labelled `label` (a Stat). */
const stat = (page: Page, label: string) =>
  page
    .locator('.stat')
    .filter({ has: page.getByText(label, { exact: true }) })
    .locator('.stat-value');

describe('the analytics views', () => {
  it('Trends shows the window totals, asks for 30 days of hours when picked and keeps the range across a reload', async () => {
    const { page, errors, context } = await openPage(browser);
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/dashboard/api/trends')) asked.push(request.url());
    });
    await page.goto(`${router.url}/dashboard/trends`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Trends');
    await expect(stat(page, 'Requests').textContent()).resolves.toBe(number(SENT[BIG] + SENT[SMALL]));
    await page.getByRole('region', { name: 'Latency' }).getByRole('img').waitFor();
    expect(new URL(asked.at(-1) ?? '').searchParams.get('hours')).toBe('24');
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'trends');

    await page.getByRole('radio', { name: '30 d' }).check();
    await eventually(async () => expect(asked.map((url) => new URL(url).searchParams.get('hours'))).toContain('720'));
    expect(new URL(page.url()).searchParams.get('range')).toBe('30d');
    await eventually(async () => expect(await stat(page, 'Hours with traffic').textContent()).toMatch(/ of 72\d$/));

    asked.length = 0;
    await page.reload();
    await expect(page.getByRole('radio', { name: '30 d' }).isChecked()).resolves.toBe(true);
    expect(new URL(page.url()).searchParams.get('range')).toBe('30d');
    await eventually(async () => expect(asked.map((url) => new URL(url).searchParams.get('hours'))).toEqual(['720']));
    await expect(stat(page, 'Requests').textContent()).resolves.toBe(number(SENT[BIG] + SENT[SMALL]));
    expect(errors).toEqual([]);
    await context.close();

    await checkPhone('trends', (phone) => stat(phone, 'Requests').waitFor());
  }, 90_000);

  it('Models lists both models with the requests sent to each, and sorts by a column', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/models`);
    const table = page.getByRole('region', { name: 'Per model' }).getByRole('table');
    for (const model of [BIG, SMALL] as const) {
      const row = table.getByRole('row', { name: new RegExp(model.replace('.', '\\.')) });
      await expect(row.getByRole('rowheader').textContent()).resolves.toBe(model);
      // The first figure after the model is its requests.
      await expect(row.getByRole('cell').first().textContent()).resolves.toBe(number(SENT[model]));
    }
    // Busiest first by default: SMALL had more requests.
    await expect(table.getByRole('rowheader').allTextContents()).resolves.toEqual([SMALL, BIG]);
    await page.getByRole('region', { name: 'Requests per model' }).getByRole('img').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'models');

    await table.getByRole('button', { name: 'Model' }).click();
    await expect(table.getByRole('rowheader').allTextContents()).resolves.toEqual([SMALL, BIG].sort());
    await expect(table.getByRole('columnheader', { name: 'Model' }).getAttribute('aria-sort')).resolves.toBe(
      'ascending',
    );
    expect(new URL(page.url()).searchParams.get('sort')).toBe('model-asc');
    expect(errors).toEqual([]);
    await context.close();

    await checkPhone('models', (phone) => phone.getByRole('rowheader', { name: BIG, exact: true }).waitFor());
  }, 90_000);

  it('Tags lists both tags with the requests that carried each and the daily breakdown, and says how to tag when none is', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/tags`);
    const perTag = page.getByRole('region', { name: 'Per tag' });
    for (const tag of [ALPHA, BETA] as const) {
      const row = perTag.getByRole('row', { name: new RegExp(tag) });
      await expect(row.getByRole('cell').first().textContent()).resolves.toBe(number(TAGGED[tag]));
    }
    const daily = page.getByRole('region', { name: 'Daily breakdown' });
    // Its own read: rendered after the per-tag table at times (allTextContents does not wait).
    await daily.getByRole('rowheader', { name: BETA, exact: true }).waitFor();
    await expect(daily.getByRole('rowheader').allTextContents()).resolves.toEqual(
      expect.arrayContaining([ALPHA, BETA]),
    );
    await expect(stat(page, 'Tags').textContent()).resolves.toBe('2');
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'tags');

    // A custom range before any traffic: no tag, and the view says how a client tags a request.
    await page.goto(`${router.url}/dashboard/tags?range=custom&from=2020-01-01T00:00&to=2020-01-03T00:00`);
    const empty = page.getByRole('region', { name: 'No tagged requests yet' });
    await empty.getByText('X-Service-Tags', { exact: true }).waitFor();
    await empty.getByText('metadata.tags', { exact: true }).waitFor();
    await expect(page.getByLabel('From').inputValue()).resolves.toBe('2020-01-01T00:00');
    expect(errors).toEqual([]);
    await context.close();

    await checkPhone('tags', (phone) => phone.getByRole('rowheader', { name: ALPHA }).first().waitFor());
  }, 90_000);

  it('Context lists the model with the context its loaded copy was given and what its requests used', async () => {
    const { models } = await readApi<{
      models: { model: string; allocated_ctx: number | null; recommended_ctx: number; measured_requests: number }[];
    }>('api/context-usage');
    const record = models.find((model) => model.model === SMALL);
    // A handful of requests: too few to size a context from, so the view advises none and says so.
    expect(record?.measured_requests).toBeLessThan(MIN_SIZING_REQUESTS);
    // The Ollama requests loaded it with num_ctx; other copies keep the node's default, so at least that.
    expect(record?.allocated_ctx).toBeGreaterThanOrEqual(NUM_CTX);

    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/context`);
    const row = page
      .getByRole('region', { name: 'Per model' })
      .getByRole('row', { name: new RegExp(SMALL.replace('.', '\\.')) });
    const cells = row.getByRole('cell');
    await expect(cells.nth(0).textContent()).resolves.toMatch(new RegExp(`^${SENT[SMALL]} `));
    await expect(cells.nth(1).textContent()).resolves.toBe(number(record?.allocated_ctx ?? -1));
    await expect(cells.nth(7).textContent()).resolves.toBe(`needs ${number(MIN_SIZING_REQUESTS)} requests`);
    await expect(cells.nth(8).textContent()).resolves.toBe('—');
    const bars = page.getByRole('region', { name: 'Allocated vs used' });
    await expect(bars.getByRole('heading', { name: SMALL }).isVisible()).resolves.toBe(true);
    await expect(
      bars
        .getByText(`${number(record?.allocated_ctx ?? -1)} tokens`)
        .first()
        .isVisible(),
    ).resolves.toBe(true);
    await expect(bars.getByText('too few requests').first().isVisible()).resolves.toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'context');
    expect(errors).toEqual([]);
    await context.close();

    await checkPhone('context', (phone) => phone.getByRole('rowheader', { name: SMALL, exact: true }).waitFor());
  }, 90_000);
});
