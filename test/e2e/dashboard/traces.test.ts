/**
 * The Traces and Recommendations views in a real browser, against the demo fleet: requests sent to two
 * models show in the trace list with their node, the model filter narrows it and stays in the URL, a
 * trace's details show the points routing gave its node, a link to one trace opens it, and the
 * recommendations render per node — all with no console error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { TraceView } from '../../../lib/core/analytics/trace-view';
import { eventually, type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot, sidewaysOverflowPx } from './harness';

const MODELS = ['llama3.2:3b', 'qwen3:8b'] as const;
let browser: Browser;
let router: RouterProcess;
let traces: TraceView[];

/** How far the page is wider than the window, px (0 or less: no sideways scrolling). */
async function chat(model: string): Promise<void> {
  const response = await fetch(`${router.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-Tags': 'app:traces-e2e' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      stream: false,
      options: { num_predict: 4 },
    }),
  });
  expect(response.status).toBe(200);
  await response.json();
}

beforeAll(async () => {
  [browser, router] = await Promise.all([launchBrowser(), startRouter({}, ['--demo'])]);
  await eventually(async () => {
    const status = (await (await fetch(`${router.url}/fleet/status`)).json()) as { fleet: { nodes_online: number } };
    expect(status.fleet.nodes_online).toBeGreaterThanOrEqual(3);
  }, 15_000);
  for (const model of [...MODELS, MODELS[0]]) await chat(model);
  traces = await eventually(async () => {
    const body = (await (await fetch(`${router.url}/dashboard/api/traces`)).json()) as { traces: TraceView[] };
    expect(body.traces.filter((trace) => trace.status === 'completed')).toHaveLength(3);
    return body.traces;
  }, 10_000);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await router?.stop();
});

describe('the Traces view', () => {
  it('lists the requests sent, narrows them by model in the URL, and shows a trace with its score breakdown', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/traces`);
    const table = page.getByRole('table', { name: /latest/ });
    await table.waitFor();
    const qwen = traces.find((trace) => trace.model === 'qwen3:8b');
    expect(qwen?.node_id).toEqual(expect.any(String));
    for (const trace of traces) {
      const row = table
        .getByRole('row')
        .filter({ has: page.getByRole('button', { name: new RegExp(trace.request_id) }) });
      await expect(row.getByRole('cell').nth(0).textContent()).resolves.toBe(trace.model);
      await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe(trace.node_id);
    }
    await expect(table.getByRole('row').count()).resolves.toBe(traces.length + 1);
    await screenshot(page, 'traces');
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByLabel('Model').fill('qwen3:8b');
    await page.getByLabel('Model').press('Enter');
    await page.getByRole('table', { name: 'The latest request' }).waitFor();
    expect(new URL(page.url()).searchParams.get('model')).toBe('qwen3:8b');
    await expect(
      page
        .getByRole('table', { name: /latest/ })
        .getByRole('row')
        .count(),
    ).resolves.toBe(2);

    // The filtered list is a link: opened afresh, it shows the same one request.
    await page.reload();
    await page.getByRole('table', { name: 'The latest request' }).waitFor();
    await expect(page.getByLabel('Model').inputValue()).resolves.toBe('qwen3:8b');

    const breakdown = Object.entries(qwen?.scores_breakdown ?? {});
    expect(breakdown.length).toBeGreaterThan(0);
    await page.getByRole('button', { name: new RegExp(`details of .*${qwen?.request_id}`) }).press('Enter');
    const details = page.getByRole('region', { name: 'Trace details' });
    await details.waitFor();
    await expect(details.getByText(qwen?.request_id ?? '', { exact: true }).isVisible()).resolves.toBe(true);
    const scores = details.getByRole('table', { name: `Score breakdown of ${qwen?.node_id}` });
    // Every signal with its points, the largest either way first (ties by name), then the total.
    const expected = [...breakdown].sort(
      ([nameA, a], [nameB, b]) => Math.abs(b) - Math.abs(a) || nameA.localeCompare(nameB),
    );
    const signals = await scores.locator('tbody th').allTextContents();
    const values = await scores.locator('tbody td.number').allTextContents();
    const points = (text: string) => Number(text.replace(/,/g, ''));
    expect(signals).toEqual(expected.map(([signal]) => signal));
    expect(values.map(points)).toEqual(expected.map(([, value]) => Math.round(value * 10) / 10));
    const total = await scores.locator('tfoot td.number').textContent();
    expect(points(total ?? '')).toBe(Math.round((qwen?.score ?? Number.NaN) * 10) / 10);
    // The trace keeps the router's prompt estimate beside the tokens the node evaluated.
    expect(qwen?.prompt_estimate_tokens).toEqual(expect.any(Number));
    await expect(details.getByText('Prompt estimate (router)').isVisible()).resolves.toBe(true);
    expect(new URL(page.url()).searchParams.get('request_id')).toBe(qwen?.request_id);
    await screenshot(page, 'trace-details');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('opens the trace a link names, even outside the filtered list', async () => {
    const { page, errors, context } = await openPage(browser);
    const llama = traces.find((trace) => trace.model === 'llama3.2:3b');
    await page.goto(`${router.url}/dashboard/traces?model=qwen3:8b&request_id=${llama?.request_id}`);
    const details = page.getByRole('region', { name: 'Trace details' });
    await details.getByText(llama?.request_id ?? '', { exact: true }).waitFor();
    await expect(details.getByText('llama3.2:3b').first().isVisible()).resolves.toBe(true);
    await details.getByRole('button', { name: 'Close' }).click();
    await expect(details.count()).resolves.toBe(0);
    expect(new URL(page.url()).searchParams.get('request_id')).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  it('fits a phone', async () => {
    const { page, errors, context } = await openPage(browser, { width: 390 });
    await page.goto(`${router.url}/dashboard/traces`);
    await page.getByRole('table', { name: /latest/ }).waitFor();
    const overflow = await sidewaysOverflowPx(page);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'traces-phone');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe('the Recommendations view', () => {
  it('renders the advice per node, with the demand the API gives', async () => {
    const report = (await (await fetch(`${router.url}/dashboard/api/recommendations`)).json()) as {
      nodes: { node_id: string; recommendations: { model: string }[] }[];
      fleet_summary: string;
    };
    expect(report.nodes.length).toBeGreaterThan(0);
    for (const width of [1280, 390]) {
      const { page, errors, context } = await openPage(browser, { width });
      await page.goto(`${router.url}/dashboard/recommendations`);
      await page.getByText(report.fleet_summary).waitFor();
      for (const node of report.nodes) {
        const card = page.getByRole('region', { name: new RegExp(`^${node.node_id} `) });
        await expect(card.isVisible()).resolves.toBe(true);
        for (const pick of node.recommendations) {
          await expect(card.getByRole('rowheader', { name: new RegExp(`^${pick.model}`) }).count()).resolves.toBe(1);
        }
      }
      const overflow = await sidewaysOverflowPx(page);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, width === 390 ? 'recommendations-phone' : 'recommendations');
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 60_000);
});
