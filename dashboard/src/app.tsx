/** The page: the header with the live state, the navigation between views, the view shown, the key prompt. */
import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { DASHBOARD_VIEWS, type DashboardViewId } from '../../lib/core/dashboard/views';
import { KeyDialog } from './components/key-dialog';
import { LiveBadge } from './components/live-badge';
import { currentView, navigate, viewHref } from './router';
import { useStore } from './store';
import { BenchmarksView } from './views/benchmarks';
import { ContextView } from './views/context';
import { FleetView } from './views/fleet';
import { HealthView } from './views/health';
import { ModelManagementView } from './views/model-management';
import { ModelsView } from './views/models';
import { RecommendationsView } from './views/recommendations';
import { SettingsView } from './views/settings';
import { TagsView } from './views/tags';
import { TracesView } from './views/traces';
import { TrendsView } from './views/trends';

const VIEWS: Record<DashboardViewId, ComponentType> = {
  fleet: FleetView,
  trends: TrendsView,
  models: ModelsView,
  tags: TagsView,
  traces: TracesView,
  health: HealthView,
  recommendations: RecommendationsView,
  benchmarks: BenchmarksView,
  context: ContextView,
  settings: SettingsView,
  'model-management': ModelManagementView,
};

export function App() {
  const view = useStore(currentView);
  const Shown = VIEWS[view];
  const title = DASHBOARD_VIEWS.find((entry) => entry.id === view)?.title ?? 'Fleet';

  useEffect(() => {
    document.title = `${title} · Fleet Router`;
  }, [title]);

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Fleet Router</span>
        <LiveBadge />
      </header>
      <nav class="views" aria-label="Views">
        <ul>
          {DASHBOARD_VIEWS.map((entry) => (
            <li key={entry.id}>
              <a
                href={viewHref(entry.id)}
                aria-current={entry.id === view ? 'page' : undefined}
                onClick={(event) => {
                  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
                  event.preventDefault();
                  navigate(entry.id);
                }}
              >
                {entry.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Shown key={view} />
      </main>
      <KeyDialog />
    </>
  );
}
