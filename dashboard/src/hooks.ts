/** Hooks the views share: an API read that refreshes, the live feed, state kept in the page's URL. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { apiGet, type Query } from './api';
import { type LiveFeed, liveFeed } from './live';
import { useStore } from './store';

export interface ApiRead<T> {
  /** The latest answer; kept while a refresh is under way, so nothing flickers. */
  readonly data: T | undefined;
  /** Why the latest read failed; cleared by the next answer. */
  readonly error: Error | undefined;
  readonly loading: boolean;
  /** Reads again now. */
  reload(): void;
}

/**
 * `GET <path>?<query>`, again whenever the path or query changes, and every `refreshMs` while the view is
 * shown (none by default). A null path reads nothing. Answers to a superseded read are dropped.
 */
export function useApi<T>(path: string | null, query: Query = {}, refreshMs?: number): ApiRead<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);
  const key = path === null ? null : `${path}?${JSON.stringify(query)}`;
  const reload = useCallback(() => setTick((n) => n + 1), []);

  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    setLoading(true);
    apiGet<T>(path, query, controller.signal).then(
      (answer) => {
        setData(() => answer);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(failure instanceof Error ? failure : new Error(String(failure)));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [key, tick]);

  useEffect(() => {
    if (refreshMs === undefined || path === null) return;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, path, reload]);

  return { data, error, loading, reload };
}

/** The live feed's latest event and connection state. */
export function useLive(): LiveFeed {
  return useStore(liveFeed);
}

/**
 * A value kept in the page's query string (`?days=30`), so a view's range or filter survives a reload
 * and can be shared as a link. The default is left out of the URL.
 */
export function useQueryState(name: string, fallback: string): [string, (value: string) => void] {
  const read = () => new URLSearchParams(window.location.search).get(name) ?? fallback;
  const [value, setValue] = useState(read);
  const fallbackRef = useRef(fallback);
  useEffect(() => {
    const onPop = () => setValue(read());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  });
  const update = useCallback(
    (next: string) => {
      const url = new URL(window.location.href);
      if (next === fallbackRef.current) url.searchParams.delete(name);
      else url.searchParams.set(name, next);
      window.history.replaceState(window.history.state, '', url);
      setValue(next);
    },
    [name],
  );
  return [value, update];
}
