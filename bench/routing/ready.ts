/**
 * Waiting for the router to see the whole fleet before a routing-bench replay (issue 41 item 3): every
 * node online, with the models the scenario loads at start reported loaded, and every model of the
 * workload in `/api/tags`. Every strategy starts from this same state.
 */
import { setTimeout as sleep } from 'node:timers/promises';

interface StatusBody {
  nodes?: { node_id?: string; status?: string; ollama?: { models_loaded?: { name?: string }[] } }[];
}

interface TagsBody {
  models?: { name?: string }[];
}

export interface FleetExpectation {
  /** Node id → models it should report loaded (the id alone when its models are unknown). */
  readonly loaded: ReadonlyMap<string, readonly string[]>;
  readonly models: readonly string[];
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const response = await fetch(url);
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** What is still missing, in words; undefined once the router sees everything expected. */
async function missing(routerUrl: string, expected: FleetExpectation): Promise<string | undefined> {
  const status = await getJson<StatusBody>(`${routerUrl}/fleet/status`);
  const tags = await getJson<TagsBody>(`${routerUrl}/api/tags`);
  if (status === undefined || tags === undefined) return 'the router does not answer /fleet/status and /api/tags';
  const online = new Map(
    (status.nodes ?? [])
      .filter((node) => node.status === 'online' && node.node_id !== undefined)
      .map((node) => [node.node_id, new Set((node.ollama?.models_loaded ?? []).map((model) => model.name))]),
  );
  for (const [id, models] of expected.loaded) {
    const loaded = online.get(id);
    if (loaded === undefined) return `node ${id} is not online`;
    const notLoaded = models.filter((model) => !loaded.has(model));
    if (notLoaded.length > 0) return `node ${id} does not report ${notLoaded.join(', ')} loaded`;
  }
  const listed = new Set((tags.models ?? []).map((model) => model.name));
  const unlisted = expected.models.filter((model) => !listed.has(model));
  return unlisted.length === 0 ? undefined : `/api/tags lacks ${unlisted.join(', ')}`;
}

/** Resolves once the router sees `expected`; throws saying what is missing after `timeoutMs`. */
export async function waitForFleet(routerUrl: string, expected: FleetExpectation, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const gap = await missing(routerUrl, expected);
    if (gap === undefined) return;
    if (Date.now() > deadline) throw new Error(`the router never saw the fleet: ${gap}`);
    await sleep(100);
  }
}
