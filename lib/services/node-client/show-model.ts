/**
 * `POST /api/show` (spec §4.4, protocols §2.9): a model's metadata in Ollama's full shape, asked of a
 * node that has it — one holding it hot first, then one with it on disk, the next on failure — and
 * cached, because chat clients (Copilot, Open WebUI) call it before every chat. Models served only by
 * a sidecar get a minimal answer with their capability, so `/api/tags` and `/api/show` agree.
 */
import { NotFoundError, UpstreamError } from '../../core/errors';
import type { FleetSnapshot, ModelPlacement } from '../../core/fleet/node';
import { saidOfNode } from '../../core/fleet/node-failure';
import { callNodeJson } from './node-client';

export interface ShowCacheOptions {
  readonly ttlMs?: number;
  readonly maxEntries?: number;
  readonly clock?: () => number;
  readonly call?: typeof callNodeJson;
}

export type ShowModel = (snapshot: FleetSnapshot, name: string, verbose: boolean) => Promise<unknown>;

function byPreference(a: ModelPlacement, b: ModelPlacement): number {
  const hot = Number(b.loaded !== undefined) - Number(a.loaded !== undefined);
  return hot !== 0 ? hot : a.node.id.localeCompare(b.node.id);
}

function sidecarShow(placement: ModelPlacement): unknown {
  const capability = placement.kind === 'image' ? 'image' : placement.kind;
  return {
    license: '',
    modelfile: '',
    parameters: '',
    template: '',
    details: { parent_model: '', format: placement.backend, family: placement.backend, families: [placement.backend] },
    model_info: {},
    capabilities: [capability],
    modified_at: new Date(placement.node.firstSeenAt).toISOString(),
  };
}

export function createShowModel(options: ShowCacheOptions = {}): ShowModel {
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 500;
  const clock = options.clock ?? Date.now;
  const call = options.call ?? callNodeJson;
  const cache = new Map<string, { expiresAt: number; value: unknown }>();

  const remember = (key: string, value: unknown) => {
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, { expiresAt: clock() + ttlMs, value });
  };

  return async (snapshot, name, verbose) => {
    const key = `${verbose ? 'v' : '-'} ${name}`;
    const hit = cache.get(key);
    if (hit !== undefined && hit.expiresAt > clock()) return hit.value;
    const placements = snapshot.placements.get(name) ?? [];
    if (placements.length === 0) throw new NotFoundError(`model '${name}' not found`, 'model_not_found');
    const runtime = placements.filter((placement) => placement.backend === 'ollama').sort(byPreference);
    if (runtime.length === 0) {
      const value = sidecarShow(placements[0] as ModelPlacement);
      remember(key, value);
      return value;
    }
    const failures: string[] = [];
    for (const placement of runtime) {
      try {
        const value = await call(placement.node.url, '/api/show', {
          body: { model: placement.model?.name ?? name, ...(verbose ? { verbose: true } : {}) },
          timeoutMs: 5000,
        });
        remember(key, value);
        return value;
      } catch (error) {
        failures.push(saidOfNode(placement.node.id, error));
      }
    }
    throw new UpstreamError(`no node could describe '${name}' (${failures.join('; ')})`);
  };
}
