/** The frame of every view: its heading (the page's h1), a line on what it shows, and its controls. */
import type { ComponentChildren } from 'preact';

export function View({
  title,
  summary,
  controls,
  children,
}: {
  title: string;
  summary?: string;
  controls?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section class="view" aria-labelledby="view-title">
      <header class="view-header">
        <div>
          <h1 id="view-title">{title}</h1>
          {summary !== undefined && <p class="view-summary">{summary}</p>}
        </div>
        {controls !== undefined && <div class="view-controls">{controls}</div>}
      </header>
      {children}
    </section>
  );
}

/** A titled block inside a view (a card on wide screens). */
export function Panel({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const heading = id ?? `panel-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section class="panel" aria-labelledby={heading}>
      <h2 id={heading}>{title}</h2>
      {children}
    </section>
  );
}

/** A headline figure: a number with its name. */
export function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div class="stat">
      <div class="stat-value">{value}</div>
      <div class="stat-label">{label}</div>
      {hint !== undefined && <div class="stat-hint">{hint}</div>}
    </div>
  );
}
