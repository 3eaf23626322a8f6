/**
 * An accessibility check for the dashboard's browser tests: axe-core (bundled from node_modules, no
 * network) run on the page's main region, answering each violation as one line naming the rule and the
 * elements, so a test can expect none.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

interface AxeResult {
  readonly violations: readonly {
    readonly id: string;
    readonly help: string;
    readonly nodes: readonly { readonly target: readonly string[] }[];
  }[];
}

const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export async function accessibilityViolations(page: Page, selector = '#main'): Promise<string[]> {
  // Evaluated, not added as a script tag: the page's Content-Security-Policy allows no inline script.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const result = (await page.evaluate(
    `axe.run(${JSON.stringify(selector)}, { runOnly: ${JSON.stringify(RULES)} })`,
  )) as AxeResult;
  return result.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
  );
}
