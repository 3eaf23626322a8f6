/**
 * An accessibility check of a dashboard view in the browser: axe-core (the package the page's tests
 * depend on) run over the view's `main`, returning its violations as short lines. Loaded with `evaluate`,
 * which the page's Content-Security-Policy (scripts from its own origin only) does not apply to.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** The rules axe finds broken in the view shown, as `rule (impact): selectors`; empty when none. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate<string[]>(
    `axe.run(document.querySelector('main')).then((result) => result.violations.map((violation) =>
      violation.id + ' (' + violation.impact + '): ' + violation.nodes.map((node) => node.target.join(' ')).join(', ')))`,
  );
}
