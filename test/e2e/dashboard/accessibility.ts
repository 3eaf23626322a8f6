/**
 * axe-core's accessibility rules run in a page of the browser tests: the violations it finds, each as
 * `rule: help (the first elements)`, so an assertion on `[]` says what is wrong. The script is evaluated
 * through the debugging protocol, which the page's Content Security Policy does not apply to.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

let source: string | undefined;

export async function accessibilityViolations(page: Page): Promise<string[]> {
  source ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  return page.evaluate<string[]>(`axe.run().then((result) => result.violations.map((violation) =>
    violation.id + ': ' + violation.help + ' (' + violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(', ') + ')'))`);
}
