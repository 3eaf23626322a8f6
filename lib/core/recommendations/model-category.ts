/**
 * Which catalog entry a model name is, and what category a model serves (issue 22 item 4): the catalog
 * says for the models it lists (`qwen3:8b`, `qwen3:8b-q8_0`, `qwen3` and `qwen3:latest` alike); for any
 * other model its kind and capabilities say (embedding, vision), then its name (`coder`, `r1`, `qwq`,
 * `vl`, …), else it is `general`. Image, speech-to-text and rerank models serve no chat category. Pure.
 */
import type { ModelKind } from '../fleet/node';
import { type CatalogModel, MODEL_CATALOG, type ModelCategory } from './catalog';

const BY_NAME: ReadonlyMap<string, CatalogModel> = new Map(MODEL_CATALOG.map((entry) => [entry.name, entry]));
const BY_LATEST: ReadonlyMap<string, CatalogModel> = new Map(
  MODEL_CATALOG.filter((entry) => entry.latest === true).map((entry) => [baseOf(entry.name), entry]),
);

function baseOf(name: string): string {
  const colon = name.indexOf(':', name.lastIndexOf('/') + 1);
  return colon === -1 ? name : name.slice(0, colon);
}

/** The catalog's entry for `name`: the tag itself, a quantisation of it (`<tag>-q8_0`), or the latest tag. */
export function catalogEntry(name: string): CatalogModel | undefined {
  const lower = name.trim().toLowerCase();
  const exact = BY_NAME.get(lower);
  if (exact !== undefined) return exact;
  const base = baseOf(lower);
  if (lower === base || lower === `${base}:latest`) return BY_LATEST.get(base);
  const dash = lower.indexOf('-', base.length + 1);
  return dash === -1 ? undefined : BY_NAME.get(lower.slice(0, dash));
}

/** What the fleet says about a model the catalog does not list. */
export interface ModelTraits {
  readonly kind?: ModelKind;
  readonly capabilities?: readonly string[];
}

const NAME_RULES: readonly (readonly [RegExp, ModelCategory])[] = [
  [/embed|minilm|bge|e5-/, 'embedding'],
  [/coder|code|starcoder|devstral|codestral/, 'coding'],
  [/(^|[^a-z])r1([^a-z0-9]|$)|qwq|reason|think|magistral/, 'reasoning'],
  [/vision|llava|vl([^a-z]|$)|minicpm-v|moondream/, 'vision'],
];

/** The category a model serves, or undefined for a model that serves none (image, speech, rerank). */
export function categoryOf(name: string, traits: ModelTraits = {}): ModelCategory | undefined {
  const entry = catalogEntry(name);
  if (entry !== undefined) return entry.category;
  const { kind, capabilities = [] } = traits;
  if (kind === 'image' || kind === 'transcription' || kind === 'rerank') return undefined;
  if (kind === 'embedding' || capabilities.includes('embedding')) return 'embedding';
  if (capabilities.includes('vision')) return 'vision';
  const lower = name.toLowerCase();
  for (const [pattern, category] of NAME_RULES) if (pattern.test(lower)) return category;
  return 'general';
}
