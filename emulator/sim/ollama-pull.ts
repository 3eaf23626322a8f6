/**
 * The simulated `/api/pull`, `/api/delete` and `/api/copy` (protocols §2.10): pull streams Ollama's exact progress
 * statuses (manifest, per-layer `pulling <12 hex>` with rising `completed`, verify, write, success) and
 * the model appears in `/api/tags` once the stream succeeds. Names the catalogue does not know still pull,
 * except those in the `missing/` namespace: they fail as Ollama fails a name its registry lacks.
 */
import type { ServerResponse } from 'node:http';
import { type CatalogModel, catalogEntry, modelDigest, withTag } from './catalog';
import type { StreamFault } from './faults';
import { fieldsOf, stringField } from './fields';
import { sha256Hex } from './hash';
import { sendError } from './http';
import { playNdjson, sendJsonAfter, type TimedLine } from './ndjson';
import type { ModelRuntime } from './runtime';

export interface PullDeps {
  readonly runtime: ModelRuntime;
  /** Delay between progress lines, ms. */
  readonly stepMs: number;
  readonly takeStreamFault: () => StreamFault;
}

interface Layer {
  readonly digest: string;
  readonly total: number;
}

/** Weights, template, licence and params layers; their sizes add up to the model's size. */
function layersOf(entry: CatalogModel): Layer[] {
  const small = [1_429, 12_403, 96];
  const weights = Math.max(1, entry.size - small.reduce((a, b) => a + b, 0));
  return [weights, ...small].map((total, i) => ({
    digest: i === 0 ? modelDigest(entry.name) : sha256Hex(`sim-layer:${entry.name}:${i}`),
    total,
  }));
}

/** Progress points for one layer: first without `completed`, then rising to `total`. */
function layerProgress(layer: Layer, present: boolean): Record<string, unknown>[] {
  const base = { status: `pulling ${layer.digest.slice(0, 12)}`, digest: `sha256:${layer.digest}`, total: layer.total };
  if (present) return [{ ...base, completed: layer.total }];
  const fractions = layer.total > 1_000_000 ? [0.25, 0.5, 0.75, 1] : [1];
  return [base, ...fractions.map((f) => ({ ...base, completed: Math.round(layer.total * f) }))];
}

function pullStatuses(entry: CatalogModel, present: boolean): Record<string, unknown>[] {
  const layers = layersOf(entry).flatMap((layer) => layerProgress(layer, present));
  const prune = present ? [{ status: 'removing unused layers' }] : [];
  return [
    { status: 'pulling manifest' },
    ...layers,
    { status: 'verifying sha256 digest' },
    { status: 'writing manifest' },
    ...prune,
    { status: 'success' },
  ];
}

/** Names in this namespace have no manifest in the simulated registry. */
export const MISSING_MODEL_NAMESPACE = 'missing/';
const NO_MANIFEST = 'pull model manifest: file does not exist';

/**
 * A name the registry lacks, as Ollama answers it: streaming, `pulling manifest` then an `{"error"}`
 * line (the status stays 200); `stream: false`, a 500 with the error.
 */
function serveMissing(deps: PullDeps, value: unknown, res: ServerResponse): void {
  if (fieldsOf<'stream'>(value)?.stream === false) {
    setTimeout(() => sendError(res, 500, NO_MANIFEST), deps.stepMs);
    return;
  }
  const lines: TimedLine[] = [
    { delayMs: 0, build: () => ({ status: 'pulling manifest' }) },
    { delayMs: deps.stepMs, build: () => ({ error: NO_MANIFEST }) },
  ];
  playNdjson(res, lines, deps.takeStreamFault(), () => undefined);
}

/** The model a pull, delete or show names (`model`, or the legacy `name`), trimmed. */
export function modelNameOf(value: unknown): string | undefined {
  const body = fieldsOf<'model' | 'name'>(value);
  const name = stringField(body?.model) ?? stringField(body?.name);
  return name !== undefined && name.trim() !== '' ? name.trim() : undefined;
}

export function servePull(deps: PullDeps, value: unknown, res: ServerResponse): void {
  const name = modelNameOf(value);
  if (name === undefined) {
    sendError(res, 400, 'model is required');
    return;
  }
  if (name.startsWith(MISSING_MODEL_NAMESPACE)) {
    serveMissing(deps, value, res);
    return;
  }
  const entry = deps.runtime.find(name) ?? catalogEntry(withTag(name));
  const present = deps.runtime.find(name) !== undefined;
  const statuses = pullStatuses(entry, present);
  const install = (completed: boolean): void => {
    if (completed && deps.runtime.find(entry.name) === undefined) deps.runtime.add(entry, Date.now());
  };
  if (fieldsOf<'stream'>(value)?.stream === false) {
    sendJsonAfter(res, deps.stepMs * statuses.length, () => ({ status: 'success' }), install);
    return;
  }
  const lines: TimedLine[] = statuses.map((status, i) => ({ delayMs: i === 0 ? 0 : deps.stepMs, build: () => status }));
  playNdjson(res, lines, deps.takeStreamFault(), install);
}

export function serveDelete(runtime: ModelRuntime, value: unknown, res: ServerResponse): void {
  const name = modelNameOf(value);
  if (name === undefined) {
    sendError(res, 400, 'model is required');
    return;
  }
  if (!runtime.remove(name)) {
    sendError(res, 404, `model '${name}' not found`);
    return;
  }
  res.writeHead(200, { 'content-length': 0 });
  res.end();
}

/**
 * `POST /api/copy` as Ollama answers it: `{source, destination}`, 400 `source "" is invalid` (or the
 * destination), 404 `model "<source>" not found` (Go's %q), else 200 with an empty body and the model
 * listed under the destination's name (`:latest` added) too.
 */
export function serveCopy(runtime: ModelRuntime, value: unknown, res: ServerResponse): void {
  const body = fieldsOf<'source' | 'destination'>(value);
  const source = stringField(body?.source)?.trim() ?? '';
  const destination = stringField(body?.destination)?.trim() ?? '';
  if (source === '' || destination === '') {
    const [field, given] = source === '' ? ['source', source] : ['destination', destination];
    sendError(res, 400, `${field} ${JSON.stringify(given)} is invalid`);
    return;
  }
  const entry = runtime.find(source);
  if (entry === undefined) {
    sendError(res, 404, `model ${JSON.stringify(source)} not found`);
    return;
  }
  runtime.add({ ...entry, name: withTag(destination) }, Date.now());
  res.writeHead(200, { 'content-length': 0 });
  res.end();
}
