/**
 * A table's horizontal scroll box (`.table-scroll`) that a keyboard can reach: a wide table on a phone
 * scrolls inside it, so it is a labelled region (a section with a name) in the tab order and the arrow keys scroll it (axe's
 * "scrollable-region-focusable"; WCAG 2.1.1).
 */
import type { ComponentChildren } from 'preact';

export function ScrollBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus for keyboard users to scroll it.
    <section class="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
