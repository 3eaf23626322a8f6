/**
 * The Fleet view in a real browser against the built emulator: the demo fleet's three nodes with their
 * loaded models and memory bars, and its queues with the requests sent to them; a node that goes offline
 * shown as offline, announced in the page and raised as a browser notification; and the live feed
 * reconnecting after the router restarts on the same port.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { CATALOG, type SimNode, startSimNode } from '../../../emulator/sim';
import type { UsageView } from '../../../lib/core/analytics/usage';
import { eventually, type RouterProcess, startRouter, waitForModel } from '../router-process';
import { accessibilityViolations, launchBrowser, openPage, screenshot, sidewaysOverflowPx } from './harness';

let browser: Browser;
let demo: RouterProcess;
const cleanups: (() => Promise<unknown>)[] = [];

const NOTIFY = 'Notify me when a node goes offline';
/** The page's notifications recorded in `window.raised` (and still raised: the permission is granted). */
const RECORD_NOTIFICATIONS = `
  window.raised = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      window.raised.push({ title, body: options && options.body });
      super(title, options);
    }
  };
`;
/** Counts the page's requests for the notification permission in `window.permissionRequests`. */
const COUNT_PERMISSION_REQUESTS = `
  window.permissionRequests = 0;
  const request = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => {
    window.permissionRequests += 1;
    return request(...args);
  };
`;
const catalog = (names: readonly string[]) => CATALOG.filter((entry) => names.includes(entry.name));

beforeAll(async () => {
  [browser, demo] = await Promise.all([launchBrowser(), startRouter({}, ['--demo'])]);
}, 600_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await browser?.close();
  await demo?.stop();
});

const nodeCard = (page: Page, nodeId: string) => page.getByRole('article', { name: nodeId, exact: true });

/** The figure a card shows under `name` (its `<dt>`), as text. */
const figure = (page: Page, card: ReturnType<Page['getByRole']>, name: string) =>
  card
    .locator('dl > div')
    .filter({ has: page.getByText(name, { exact: true }) })
    .locator('dd');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function simNode(id: string): Promise<SimNode> {
  const node = await startSimNode({ id, models: catalog(['llama3.2:3b']), loaded: ['llama3.2:3b'] });
  cleanups.push(() => node.close());
  return node;
}

describe('the Fleet view', () => {
  it('shows the demo fleet: three nodes, their loaded models, memory bars and queues after traffic', async () => {
    // A chat, once the demo's nodes have joined (until then the model is unknown), counted in today's
    // usage before the page opens; the router says which node served it.
    const servedBy = await eventually(async () => {
      const reply = await fetch(`${demo.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'qwen3:8b', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(reply.status).toBe(200);
      await reply.json();
      return reply.headers.get('x-fleet-node') ?? '';
    }, 15_000);
    const usage = await eventually(async () => {
      const body = (await (await fetch(`${demo.url}/dashboard/api/usage?days=1`)).json()) as UsageView;
      const row = body.data.find((entry) => entry.node_id === servedBy && entry.model_name === 'qwen3:8b');
      expect(row?.completed_count).toBeGreaterThanOrEqual(1);
      return body;
    }, 20_000);
    // The simulated node reports its own prompt and answer times, and the router estimated the prompt.
    const rates = usage.nodes.find((node) => node.node_id === servedBy);
    expect(rates?.prefill_tokens_per_second).toBeGreaterThan(0);
    expect(rates?.decode_tokens_per_second).toBeGreaterThan(0);
    expect(rates?.prompt_cache).toMatchObject({ source: 'estimated', share_pct: expect.any(Number) });
    expect(usage.fleet.prompt_cache.estimated_requests).toBeGreaterThanOrEqual(1);

    const { page, errors, context } = await openPage(browser);
    await page.goto(`${demo.url}/dashboard/fleet`);
    await page.getByText('Reading the fleet…').or(nodeCard(page, 'gpu-large')).first().waitFor();
    const expected = {
      'gpu-large': ['qwen3:8b', 'nomic-embed-text:latest'],
      'gpu-small': ['llama3.2:3b'],
      'ollama-plain': ['llama3.2:3b'],
    };
    for (const [nodeId, models] of Object.entries(expected)) {
      const card = nodeCard(page, nodeId);
      await card.getByText('Online', { exact: true }).waitFor({ timeout: 15_000 });
      for (const model of models) {
        await expect(card.getByRole('rowheader', { name: model, exact: true }).isVisible()).resolves.toBe(true);
      }
    }
    // The agents report their memory; the polled Ollama does not, and its bar says so.
    for (const nodeId of ['gpu-large', 'gpu-small']) {
      const memory = nodeCard(page, nodeId).getByRole('meter', { name: 'Memory' });
      expect(await memory.getAttribute('aria-valuetext')).toMatch(/^\d+ %, [\d.]+ \/ [\d.]+ GB/);
    }
    expect(
      await nodeCard(page, 'ollama-plain').getByRole('meter', { name: 'Memory' }).getAttribute('aria-valuetext'),
    ).toBe('not reported');
    // gpu-large's sidecars, as its agent reports them.
    await expect(nodeCard(page, 'gpu-large').getByText('Text embedding / rerank').isVisible()).resolves.toBe(true);

    const queue = page.getByRole('article', { name: `${servedBy} · qwen3:8b`, exact: true });
    await queue.waitFor();
    // The card shows "—" until the page's own read of today's usage answers (slower on a loaded machine).
    await figure(page, queue, 'Completed today')
      .filter({ hasText: /^[1-9]\d*$/ })
      .waitFor();
    await expect(figure(page, queue, 'Completed today').textContent()).resolves.toMatch(/^[1-9]\d*$/);
    expect(await figure(page, queue, 'Limit').textContent()).toMatch(/^[1-9]\d*$/);
    await expect(page.getByText(/^As of /).isVisible()).resolves.toBe(true);
    // The serving node's card shows its own rates today; the totals the fleet's prompt-cache share, labelled.
    const served = nodeCard(page, servedBy);
    await figure(page, served, 'Prefill today')
      .filter({ hasText: / tok\/s$/ })
      .waitFor();
    await expect(figure(page, served, 'Decode today').textContent()).resolves.toMatch(/^[\d,.]+ tok\/s$/);
    await expect(figure(page, served, 'Prompt cache today').textContent()).resolves.toMatch(/^[\d.]+ % \(estimated\)$/);
    const cacheStat = page
      .getByRole('region', { name: 'Fleet totals' })
      .locator('.stat')
      .filter({ hasText: 'Prompt cache share, today' });
    await expect(cacheStat.locator('.stat-value').textContent()).resolves.toMatch(/^[\d.]+ %$/);
    await expect(cacheStat.locator('.stat-hint').textContent()).resolves.toMatch(
      /^estimated: the router's prompt estimate against the tokens the nodes evaluated, over \d+ requests?$/,
    );
    await screenshot(page, 'fleet');
    expect(await accessibilityViolations(page)).toEqual([]);

    const phone = await openPage(browser, { width: 390, height: 844 });
    await phone.page.goto(`${demo.url}/dashboard/fleet`);
    await nodeCard(phone.page, 'ollama-plain').getByText('Online', { exact: true }).waitFor({ timeout: 15_000 });
    await phone.page.getByRole('article', { name: `${servedBy} · qwen3:8b`, exact: true }).waitFor();
    expect(await sidewaysOverflowPx(phone.page)).toBeLessThanOrEqual(0);
    await screenshot(phone.page, 'fleet-phone');
    expect(await accessibilityViolations(phone.page)).toEqual([]);

    expect(errors).toEqual([]);
    expect(phone.errors).toEqual([]);
    await Promise.all([context.close(), phone.context.close()]);
  }, 90_000);

  it('shows the share of the prompts a node served from its cache, estimated, after a conversation goes on', async () => {
    // A node that keeps Ollama's prompt cache (one slot) and, like Ollama, reports only the tokens it evaluated.
    const node = await startSimNode({
      id: 'cached',
      models: catalog(['llama3.2:3b']),
      loaded: ['llama3.2:3b'],
      performance: { hardware: 'rtx-4090', timeScale: 20, jitter: 0 },
    });
    cleanups.push(() => node.close());
    const router = await startRouter({ FLEET_NODES: `cached=${node.url}` });
    cleanups.push(() => router.stop());
    const long = 'Tell me about the fleet and its nodes. '.repeat(150);
    const ask = async (messages: { role: string; content: string }[]) => {
      const reply = await fetch(`${router.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'llama3.2:3b', messages, stream: false, options: { num_predict: 8 } }),
      });
      expect(reply.status).toBe(200);
      return ((await reply.json()) as { message: { content: string } }).message.content;
    };
    const first = [{ role: 'user', content: long }];
    const answer = await eventually(() => ask(first), 15_000);
    // The second turn starts with the first: the node evaluates only what is new.
    await ask([...first, { role: 'assistant', content: answer }, { role: 'user', content: 'And then?' }]);
    const usage = await eventually(async () => {
      const body = (await (await fetch(`${router.url}/dashboard/api/usage?days=1`)).json()) as UsageView;
      expect(body.fleet.prompt_cache.estimated_requests).toBe(2);
      return body;
    }, 20_000);
    // About the first prompt's share of both: far from 0, short of 100.
    expect(usage.fleet.prompt_cache).toMatchObject({ source: 'estimated', measured_pct: null });
    expect(usage.fleet.prompt_cache.share_pct).toBeGreaterThan(20);
    expect(usage.fleet.prompt_cache.share_pct).toBeLessThan(80);

    const { page, errors, context } = await openPage(browser);
    await page.goto(`${router.url}/dashboard/fleet`);
    const card = nodeCard(page, 'cached');
    const shown = `${usage.fleet.prompt_cache.share_pct} % (estimated)`;
    await figure(page, card, 'Prompt cache today').filter({ hasText: shown }).waitFor({ timeout: 15_000 });
    await expect(figure(page, card, 'Prefill today').textContent()).resolves.toMatch(/^[\d,.]+ tok\/s$/);
    const cacheStat = page
      .getByRole('region', { name: 'Fleet totals' })
      .locator('.stat')
      .filter({ hasText: 'Prompt cache share, today' });
    await expect(cacheStat.locator('.stat-value').textContent()).resolves.toBe(
      `${usage.fleet.prompt_cache.share_pct} %`,
    );
    await screenshot(page, 'fleet-prompt-cache');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('shows who waits in a queue, by priority and by application', async () => {
    // One slot, held over a second per request: the others line up behind it.
    const node = await startSimNode({
      id: 'busy',
      models: catalog(['llama3.2:3b']),
      loaded: ['llama3.2:3b'],
      numParallel: 1,
      ttftMs: 4000,
    });
    cleanups.push(() => node.close());
    const router = await startRouter({ FLEET_NODES: `busy=${node.url}`, FLEET_NODE_CONCURRENCY: 'busy=1' });
    cleanups.push(() => router.stop());
    await waitForModel(router.url, 'llama3.2:3b');
    const chat = (app: string, priority: string) =>
      fetch(`${router.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-tags': app, 'x-fleet-priority': priority },
        body: JSON.stringify({ model: 'llama3.2:3b', messages: [{ role: 'user', content: app }], stream: false }),
      }).then((reply) => reply.arrayBuffer());
    const sent = [chat('running', 'normal')];
    await eventually(async () => expect(node.snapshot().requestsActive).toBe(1));
    sent.push(chat('batch', 'low'), chat('batch', 'low'), chat('agent', 'high'));
    const { page, errors, context } = await openPage(browser);

    await page.goto(`${router.url}/dashboard/fleet`);
    const queue = page.getByRole('article', { name: 'busy · llama3.2:3b', exact: true });
    await figure(page, queue, 'Waiting by priority').filter({ hasText: '1 high · 2 low' }).waitFor({ timeout: 3000 });

    expect(await figure(page, queue, 'Waiting by application').textContent()).toBe('tag:batch 2, tag:agent 1');
    expect(await figure(page, queue, 'Pending').textContent()).toBe('3');
    expect(errors).toEqual([]);
    await context.close();
    await Promise.all(sent);
  }, 60_000);

  it('shows a node going offline, announces it and raises a notification when asked to', async () => {
    const doomed = await simNode('doomed');
    const steady = await simNode('steady');
    const router = await startRouter({ FLEET_NODES: `doomed=${doomed.url},steady=${steady.url}` });
    cleanups.push(() => router.stop());

    const { page, errors, context } = await openPage(browser, { permissions: ['notifications'] });
    // Every notification the page raises is recorded (and still raised: the permission is granted).
    await page.addInitScript({ content: RECORD_NOTIFICATIONS });
    await page.goto(`${router.url}/dashboard/fleet`);
    await nodeCard(page, 'doomed').getByText('Online', { exact: true }).waitFor({ timeout: 15_000 });
    const option = page.getByRole('checkbox', { name: NOTIFY });
    await expect(option.isChecked()).resolves.toBe(false);
    await option.check();
    // Remembered in this browser.
    await page.reload();
    await nodeCard(page, 'doomed').getByText('Online', { exact: true }).waitFor({ timeout: 15_000 });
    await expect(page.getByRole('checkbox', { name: NOTIFY }).isChecked()).resolves.toBe(true);

    const closedAt = Date.now();
    await doomed.close();
    // The router counts a node offline after 30 s without a good poll (its fixed threshold)…
    await eventually(async () => {
      const status = (await (await fetch(`${router.url}/fleet/status`)).json()) as {
        nodes: { node_id: string; status: string }[];
      };
      expect(status.nodes.find((node) => node.node_id === 'doomed')?.status).toBe('offline');
    }, 45_000);
    const routerSaidAt = Date.now();
    // …and the open page shows it within a few seconds of the router saying so (one event, ≤ 2 s).
    await nodeCard(page, 'doomed').getByText('Offline', { exact: true }).waitFor({ timeout: 5000 });
    const shownAfterMs = Date.now() - closedAt;
    const pageLagMs = Date.now() - routerSaidAt;
    const raised = await eventually(async () => {
      const notes = await page.evaluate<{ title: string }[]>('window.raised');
      expect(notes.length).toBeGreaterThan(0);
      return notes;
    }, 5000);
    expect(raised.map((note) => note.title)).toEqual(['Fleet Router: doomed went offline']);
    const announcer = page.getByRole('complementary', { name: 'Node alerts' }).getByRole('status');
    await expect(announcer.textContent()).resolves.toMatch(/^doomed went offline at /);
    await expect(
      page
        .getByRole('main')
        .getByText(/^doomed went offline at /)
        .isVisible(),
    ).resolves.toBe(true);
    await expect(nodeCard(page, 'steady').getByText('Online', { exact: true }).isVisible()).resolves.toBe(true);
    console.log(
      `fleet view: doomed shown offline ${shownAfterMs} ms after its Ollama closed, ${pageLagMs} ms after /fleet/status said so`,
    );
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'fleet-offline');

    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('asks for the permission when the option is switched on, and says so when the browser refuses', async () => {
    const { page, errors, context } = await openPage(browser);
    await page.addInitScript({ content: COUNT_PERMISSION_REQUESTS });
    await page.goto(`${demo.url}/dashboard/fleet`);
    await nodeCard(page, 'gpu-large').waitFor({ timeout: 15_000 });
    // No permission granted to this context: headless Chromium answers the request without a prompt.
    await page.getByRole('checkbox', { name: NOTIFY }).check();
    await page.getByText(/; offline nodes are still announced on this page\.$/).waitFor();
    expect(await page.evaluate<number>('window.permissionRequests')).toBe(1);
    expect(await page.evaluate<string>('Notification.permission')).not.toBe('granted');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says it is reconnecting while the router restarts, then shows the new router live', async () => {
    const port = String(await freePort());
    const before = await simNode('before-restart');
    const after = await simNode('after-restart');
    const first = await startRouter({ FLEET_PORT: port, FLEET_NODES: `before-restart=${before.url}` });
    cleanups.push(() => first.stop());

    const { page, errors, context } = await openPage(browser);
    await page.goto(`${first.url}/dashboard/fleet`);
    await nodeCard(page, 'before-restart').getByText('Online', { exact: true }).waitFor({ timeout: 15_000 });
    const badge = page.locator('header.top').getByRole('status');
    await expect(badge.textContent()).resolves.toBe('Live');

    await first.stop();
    await page.locator('header.top').getByText('Reconnecting…').waitFor({ timeout: 15_000 });
    await expect(page.getByText('The live feed was lost; reconnecting…').isVisible()).resolves.toBe(true);

    const second = await startRouter({ FLEET_PORT: port, FLEET_NODES: `after-restart=${after.url}` });
    cleanups.push(() => second.stop());
    await nodeCard(page, 'after-restart').getByText('Online', { exact: true }).waitFor({ timeout: 30_000 });
    await expect(badge.textContent()).resolves.toBe('Live');
    await expect(page.getByText('The live feed was lost; reconnecting…').count()).resolves.toBe(0);

    // While the router was down the browser itself logs the refused connections; nothing else may appear.
    expect(errors.filter((error) => !/net::ERR_(CONNECTION_REFUSED|INCOMPLETE_CHUNKED_ENCODING)/.test(error))).toEqual(
      [],
    );
    await context.close();
  }, 90_000);
});
