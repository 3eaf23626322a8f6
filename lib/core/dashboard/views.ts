/**
 * The dashboard page's views (issue 23), one list for the page and the server: the page shows the view its
 * path names (`/dashboard/<id>`, deep-linkable), and the server answers such a path with the page only for
 * an id listed here (any other is a 404). `/dashboard` itself redirects to the first. Pure.
 */
export interface DashboardView {
  /** The path segment after `/dashboard/`. */
  readonly id: string;
  /** The name in the navigation and the document title. */
  readonly title: string;
}

export const DASHBOARD_VIEWS = [
  { id: 'fleet', title: 'Fleet' },
  { id: 'trends', title: 'Trends' },
  { id: 'models', title: 'Models' },
  { id: 'tags', title: 'Tags' },
  { id: 'traces', title: 'Traces' },
  { id: 'health', title: 'Health' },
  { id: 'recommendations', title: 'Recommendations' },
  { id: 'benchmarks', title: 'Benchmarks' },
  { id: 'context', title: 'Context' },
  { id: 'settings', title: 'Settings' },
  { id: 'model-management', title: 'Model management' },
] as const satisfies readonly DashboardView[];

export type DashboardViewId = (typeof DASHBOARD_VIEWS)[number]['id'];

/** Paths the reference's users have bookmarked, served as the view they meant. */
const ALIASES: Readonly<Record<string, DashboardViewId>> = { apps: 'tags' };

/** The view a path segment names, or undefined for none. */
export function dashboardView(segment: string): DashboardViewId | undefined {
  const alias = ALIASES[segment];
  if (alias !== undefined) return alias;
  return DASHBOARD_VIEWS.find((view) => view.id === segment)?.id;
}
