/**
 * The analytics cache's key for one request: the view and its query parameters in a fixed order, so the
 * same question from any tab shares one read (lib/services/analytics/read-cache).
 */
import type { Query } from '../../core/analytics/window';

export function readKey(view: string, query: Query): string {
  const parameters = Object.entries(query)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return `${view}?${parameters.join('&')}`;
}
