/**
 * Which view the page shows: the path's last segment (`/dashboard/trends`), so every view is a link that
 * can be bookmarked. Moving between views changes the path with the History API; nothing reloads.
 */
import { type DashboardViewId, dashboardView } from '../../lib/core/dashboard/views';
import { createStore } from './store';

function viewOfLocation(): DashboardViewId {
  const segment =
    window.location.pathname
      .split('/')
      .filter((part) => part !== '')
      .at(-1) ?? '';
  return dashboardView(segment) ?? 'fleet';
}

export const currentView = createStore<DashboardViewId>(viewOfLocation());

window.addEventListener('popstate', () => currentView.set(viewOfLocation()));

/** Shows `view`, with `query` (`?model=…`) as its URL's query string. */
export function navigate(view: DashboardViewId, query: Readonly<Record<string, string>> = {}): void {
  const url = new URL(view, document.baseURI);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  window.history.pushState(null, '', url);
  currentView.set(view);
  window.scrollTo(0, 0);
}

/** The href of a view (relative, so it works behind any prefix). */
export const viewHref = (view: DashboardViewId, query: Readonly<Record<string, string>> = {}): string => {
  const search = new URLSearchParams(query).toString();
  return search === '' ? view : `${view}?${search}`;
};
