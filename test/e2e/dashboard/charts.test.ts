/**
 * Bar charts a person can read (issue 44 item 6), in a real browser on the Models view: with many models of
 * long names, the name under each bar stays in its bar's column — no two names overlap, each is centred
 * under its bar — a name too long for two lines of its column is cut with an ellipsis, and every name gives its full
 * text on hover (`title`). At a laptop's width and a phone's. The models answer is the router's own,
 * with the models put in by the page's network layer, so the names are exactly as long as wanted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { ModelSummary, ModelsView } from '../../../lib/core/analytics/models';
import { type RouterProcess, startRouter } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot } from './harness';

const NAMES = [
  'hf.co/bartowski/Qwen2.5-Coder-32B-Instruct-GGUF:Q4_K_M',
  'llama3.2:3b',
  'nomic-embed-text:latest',
  'mxbai-embed-large:latest',
  'deepseek-r1:70b-llama-distill-q4_K_M',
  'qwen3:8b',
  'gpt-oss:20b',
  'x/z-image-turbo:latest',
  'gemma3:12b-it-qat',
];

function summary(name: string, index: number): ModelSummary {
  const percentiles = { p50: 400 + index, p75: 600, p95: 900 + 50 * index, p99: 1200 };
  return {
    model_name: name,
    total_requests: 100 - index * 7,
    completed_count: 100 - index * 7,
    error_count: 0,
    error_rate_pct: 0,
    avg_latency_ms: 500,
    min_latency_ms: null,
    max_latency_ms: null,
    latency_range_ms: { from: 100, below: 2048 },
    latency_ms: percentiles,
    avg_ttft_ms: 120,
    ttft_ms: percentiles,
    tokens_per_second: 20 + index,
    cache_measured_requests: 0,
    cache_hit_rate_pct: null,
    total_prompt_tokens: 1000,
    total_completion_tokens: 500,
    max_prompt_tokens: 300,
    max_total_tokens: 400,
    total_retries: 0,
    total_fallbacks: 0,
    nodes: ['gpu1'],
    first_seen: Math.floor(Date.now() / 1000) - 86_400,
    last_seen: Math.floor(Date.now() / 1000),
  };
}

let browser: Browser;
let router: RouterProcess;

beforeAll(async () => {
  [browser, router] = await Promise.all([launchBrowser(), startRouter({})]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await router?.stop();
});

interface NameBox {
  readonly text: string;
  readonly title: string | null;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  readonly lineHeight: number;
  readonly cut: boolean;
}

interface ChartLayout {
  readonly names: NameBox[];
  /** The plotting area (uPlot's overlay), where the bars are. */
  readonly plot: { readonly left: number; readonly width: number };
}

/** Each bar chart's names, as laid out, with its plotting area. A string: the tests have no DOM types. */
const LAYOUT = `[...document.querySelectorAll('figure.chart')].filter((f) => f.querySelector('.chart-categories')).map((figure) => {
  const over = figure.querySelector('.u-over').getBoundingClientRect();
  return {
    plot: { left: over.left, width: over.width },
    names: [...figure.querySelectorAll('.chart-category')].map((name) => {
      const box = name.getBoundingClientRect();
      return { text: name.textContent, title: name.getAttribute('title'), left: box.left, right: box.right, top: box.top, bottom: box.bottom, lineHeight: parseFloat(getComputedStyle(name).lineHeight), cut: name.scrollHeight > name.clientHeight || name.scrollWidth > name.clientWidth };
    }),
  };
})`;

async function openModels(width: number): Promise<{ page: Page; charts: ChartLayout[]; close: () => Promise<void> }> {
  const { page, errors, context } = await openPage(browser, { width, height: 900 });
  await page.route('**/dashboard/api/models*', async (route) => {
    const real = (await (await route.fetch()).json()) as ModelsView;
    const answer: ModelsView = { ...real, summary: NAMES.map(summary), daily: [] };
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(answer) });
  });
  await page.goto(`${router.url}/dashboard/models`);
  await page.locator('.chart-category').first().waitFor();
  const charts = await page.evaluate<ChartLayout[]>(LAYOUT);
  return {
    page,
    charts,
    close: async () => {
      expect(errors).toEqual([]);
      await context.close();
    },
  };
}

function expectReadable(charts: readonly ChartLayout[]): void {
  expect(charts.length).toBe(3);
  for (const { names, plot } of charts) {
    expect(names.map((name) => name.title)).toEqual(NAMES);
    expect(names.map((name) => name.text)).toEqual(NAMES);
    const slot = plot.width / NAMES.length;
    names.forEach((name, index) => {
      // Within its bar's slot, centred under the bar: so never over its neighbour.
      expect(name.left).toBeGreaterThanOrEqual(plot.left + index * slot - 0.5);
      expect(name.right).toBeLessThanOrEqual(plot.left + (index + 1) * slot + 0.5);
      expect(Math.abs((name.left + name.right) / 2 - (plot.left + (index + 0.5) * slot))).toBeLessThan(1);
      expect(name.top).toBe(names[0]?.top);
      const next = names[index + 1];
      if (next !== undefined) expect(name.right).toBeLessThanOrEqual(next.left + 0.5);
    });
    // The longest names do not fit two lines of a ninth of a chart: they are cut, and whole in their title.
    expect(names.find((name) => name.text === NAMES[0])?.cut).toBe(true);
    // At most two lines each.
    for (const name of names) expect(name.bottom - name.top).toBeLessThanOrEqual(2 * name.lineHeight + 0.5);
  }
}

describe('the Models view bar charts', () => {
  it('keeps each model name under its own bar, cut to fit, whole on hover, at a laptop width', async () => {
    const { page, charts, close } = await openModels(1280);

    expectReadable(charts);
    // Hovering a cut name shows the whole of it: the browser's tooltip is its title.
    const cut = page.locator('.chart-category', { hasText: NAMES[0] as string }).first();
    await cut.hover();
    await expect(cut.getAttribute('title')).resolves.toBe(NAMES[0]);
    await screenshot(page, 'models-bar-names');
    expect(await accessibilityViolations(page)).toEqual([]);
    await close();
  }, 60_000);

  it('keeps them apart at a phone width too', async () => {
    const { page, charts, close } = await openModels(390);

    expectReadable(charts);
    await screenshot(page, 'models-bar-names-phone');
    await close();
  }, 60_000);
});
