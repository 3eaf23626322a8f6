/**
 * What the dashboard's browser tests share: headless Chromium (Debian's, installed by
 * scripts/ensure-chromium.mjs when missing) driven by playwright-core; a page that records every console
 * error and uncaught exception; an accessibility check by axe-core; and screenshots kept under
 * test-output/screenshots/ (git-ignored) for a reviewer to look at.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const root = join(__dirname, '..', '..', '..');
export const SCREENSHOTS = join(root, 'test-output', 'screenshots');

/** Launches headless Chromium, installing Debian's package first when it is missing (as root). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = execFileSync(process.execPath, [join(root, 'scripts', 'ensure-chromium.mjs')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return chromium.launch({ executablePath, headless: true });
}

export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console errors and uncaught exceptions so far, as text. */
  readonly errors: string[];
}

/** A fresh context (own storage) and page, watched for console errors and uncaught exceptions. */
export async function openPage(
  browser: Browser,
  options: { width?: number; height?: number; permissions?: string[]; baseURL?: string } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`exception: ${error.message}`));
  return { page, context, errors };
}

/** Saves a full-page screenshot as test-output/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The WCAG 2.1 A and AA rules and axe's best practices. */
const AXE_RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Puts axe-core (`window.axe`) into the page, evaluated: the page's CSP allows no inline script tag. */
export async function loadAxe(page: Page): Promise<void> {
  await page.evaluate(AXE_SOURCE);
}

/** How far the page reaches past the window's right edge, px (0 or less: nothing scrolls sideways). */
export function sidewaysOverflowPx(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

/**
 * What axe-core finds wrong in `selector` (the view by default), one line per rule with its impact and
 * the elements; empty when nothing. axe is evaluated rather than added as a script tag: the page's
 * Content-Security-Policy allows no inline script. A string, not a function: the tests are type-checked
 * without the DOM's types.
 */
export async function accessibilityViolations(page: Page, selector = '#main'): Promise<string[]> {
  await loadAxe(page);
  return page.evaluate<string[]>(
    `axe.run(${JSON.stringify(selector)}, { runOnly: ${JSON.stringify(AXE_RULES)} }).then((result) =>
      result.violations.map((violation) => violation.id + ' (' + violation.impact + '): ' + violation.help + ': ' +
        violation.nodes.map((node) => node.target.join(' ')).join(', ')))`,
  );
}
