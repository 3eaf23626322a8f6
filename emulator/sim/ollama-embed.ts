/**
 * The simulated `/api/embed` and legacy `/api/embeddings` (protocols §2.6): deterministic vectors as wide
 * as the model's embedding length (or `dimensions` when smaller, re-normalised), L2-normalised for
 * `/api/embed` and left unnormalised for the legacy route, as Ollama does.
 */
import type { ServerResponse } from 'node:http';
import { type CatalogModel, hasCapability } from './catalog';
import { msToNs, startStopwatch } from './clock';
import { type Fields, fieldsOf, stringField } from './fields';
import { sendError } from './http';
import { sendJsonAfter } from './ndjson';
import type { ModelRuntime } from './runtime';
import { parseKeepAlive } from './runtime';
import { countPromptTokens } from './text';
import { embedText } from './vectors';

export interface EmbedDeps {
  readonly runtime: ModelRuntime;
  /** Extra time to load a model that is not hot, ms. */
  readonly loadMs: number;
}

/** Legacy vectors are not normalised; this is a typical norm for them. */
const LEGACY_NORM = 18.5;

type EmbedBody = Fields<'model' | 'input' | 'prompt' | 'truncate' | 'dimensions' | 'keep_alive'>;

type Lookup = { readonly entry: CatalogModel; readonly body: EmbedBody } | undefined;

/** Common checks: body, model present, model known and able to embed. Answers the error itself. */
function lookup(deps: EmbedDeps, value: unknown, res: ServerResponse): Lookup {
  const body = fieldsOf<'model' | 'input' | 'prompt' | 'truncate' | 'dimensions' | 'keep_alive'>(value);
  const model = stringField(body?.model);
  if (body === undefined || model === undefined || model.trim() === '') {
    sendError(res, 400, 'model is required');
    return undefined;
  }
  const entry = deps.runtime.find(model);
  if (entry === undefined) {
    sendError(res, 404, `model '${model}' not found`);
    return undefined;
  }
  if (hasCapability(entry, 'image')) {
    sendError(res, 400, `"${model}" does not support embeddings`);
    return undefined;
  }
  return { entry, body };
}

function inputsOf(input: unknown): string[] | undefined {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return input === '' ? [] : [input];
  if (Array.isArray(input) && input.every((item) => typeof item === 'string')) return input;
  return undefined;
}

function widthOf(entry: CatalogModel, dimensions: unknown): number {
  const native = entry.embeddingLength;
  return typeof dimensions === 'number' && Number.isInteger(dimensions) && dimensions > 0 && dimensions < native
    ? dimensions
    : native;
}

/** Loads the model (keep_alive honoured) and returns the load delay in ms. */
function warm(deps: EmbedDeps, entry: CatalogModel, body: EmbedBody): number {
  const keepAlive = parseKeepAlive(body.keep_alive);
  const keepAliveMs = typeof keepAlive === 'number' ? keepAlive : undefined;
  return deps.runtime.load(entry.name, keepAliveMs) ? deps.loadMs : 0;
}

export function serveEmbed(deps: EmbedDeps, value: unknown, res: ServerResponse): void {
  const found = lookup(deps, value, res);
  if (found === undefined) return;
  const { entry, body } = found;
  const inputs = inputsOf(body.input);
  if (inputs === undefined) {
    sendError(res, 400, 'invalid input type');
    return;
  }
  const tokens = inputs.map(countPromptTokens);
  if (body.truncate === false && tokens.some((count) => count > entry.contextLength)) {
    sendError(res, 400, 'the input length exceeds the context length');
    return;
  }
  const watch = startStopwatch();
  const loadMs = warm(deps, entry, body);
  const width = widthOf(entry, body.dimensions);
  const build = () => ({
    model: body.model,
    embeddings: inputs.map((text) => embedText(text, width, entry.name)),
    total_duration: Math.max(1, watch()),
    load_duration: msToNs(loadMs) + 1_000_000,
    prompt_eval_count: tokens.reduce((sum, count) => sum + Math.min(count, entry.contextLength), 0),
  });
  sendJsonAfter(res, loadMs, build, deps.runtime.begin(entry.name));
}

export function serveLegacyEmbeddings(deps: EmbedDeps, value: unknown, res: ServerResponse): void {
  const found = lookup(deps, value, res);
  if (found === undefined) return;
  const { entry, body } = found;
  const prompt = stringField(body.prompt) ?? '';
  const loadMs = warm(deps, entry, body);
  const build = () => ({
    embedding: prompt === '' ? [] : embedText(prompt, entry.embeddingLength, entry.name).map((x) => x * LEGACY_NORM),
  });
  sendJsonAfter(res, loadMs, build, deps.runtime.begin(entry.name));
}
