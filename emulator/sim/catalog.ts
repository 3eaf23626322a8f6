/**
 * The simulated model catalogue: realistic Ollama models (sizes in bytes, architectures, context and
 * embedding lengths, capabilities) that simulated nodes list, load and serve. Unknown names can still be
 * "pulled": `catalogEntry` invents a plausible entry from the name.
 */
import { sha256Hex } from './hash';

/** Capabilities as Ollama reports them (`/api/show`, `/api/tags`). */
export type ModelCapability =
  | 'completion'
  | 'tools'
  | 'insert'
  | 'vision'
  | 'embedding'
  | 'thinking'
  | 'image'
  | 'audio';

export interface CatalogModel {
  /** Name with tag, as Ollama lists it. */
  readonly name: string;
  readonly family: string;
  readonly families: readonly string[];
  /** GGUF `general.architecture` (keys of `model_info` are prefixed with it). */
  readonly arch: string;
  readonly basename: string;
  /** `details.parameter_size`, e.g. `7.6B`. */
  readonly parameterSize: string;
  readonly parameterCount: number;
  /** `details.quantization_level`, e.g. `Q4_K_M`. */
  readonly quantization: string;
  readonly format: 'gguf' | 'safetensors';
  /** Trained context window (`<arch>.context_length`). */
  readonly contextLength: number;
  /** Hidden size (`<arch>.embedding_length`); the vector width of embedding models. */
  readonly embeddingLength: number;
  readonly blockCount: number;
  readonly capabilities: readonly ModelCapability[];
  /** Bytes on disk. */
  readonly size: number;
}

type Spec = Omit<CatalogModel, 'families' | 'basename'> & { families?: readonly string[]; basename?: string };

function model(spec: Spec): CatalogModel {
  return {
    ...spec,
    families: spec.families ?? [spec.family],
    basename: spec.basename ?? baseName(spec.name),
  };
}

function baseName(name: string): string {
  const bare = name.split('/').pop() ?? name;
  return bare.split(':')[0] ?? bare;
}

/** Every model the simulator knows by default. */
export const CATALOG: readonly CatalogModel[] = [
  model({
    name: 'llama3.2:1b',
    family: 'llama',
    arch: 'llama',
    basename: 'Llama 3.2',
    parameterSize: '1.2B',
    parameterCount: 1_235_814_432,
    quantization: 'Q8_0',
    format: 'gguf',
    contextLength: 131_072,
    embeddingLength: 2048,
    blockCount: 16,
    capabilities: ['completion', 'tools'],
    size: 1_321_098_329,
  }),
  model({
    name: 'llama3.2:3b',
    family: 'llama',
    arch: 'llama',
    basename: 'Llama 3.2',
    parameterSize: '3.2B',
    parameterCount: 3_212_749_888,
    quantization: 'Q4_K_M',
    format: 'gguf',
    contextLength: 131_072,
    embeddingLength: 3072,
    blockCount: 28,
    capabilities: ['completion', 'tools'],
    size: 2_019_393_189,
  }),
  model({
    name: 'qwen3:8b',
    family: 'qwen3',
    arch: 'qwen3',
    basename: 'Qwen3',
    parameterSize: '8.2B',
    parameterCount: 8_190_735_360,
    quantization: 'Q4_K_M',
    format: 'gguf',
    contextLength: 40_960,
    embeddingLength: 4096,
    blockCount: 36,
    capabilities: ['completion', 'tools', 'thinking'],
    size: 5_225_387_923,
  }),
  model({
    name: 'qwen2.5:32b',
    family: 'qwen2',
    arch: 'qwen2',
    basename: 'Qwen2.5',
    parameterSize: '32.8B',
    parameterCount: 32_763_876_352,
    quantization: 'Q4_K_M',
    format: 'gguf',
    contextLength: 32_768,
    embeddingLength: 5120,
    blockCount: 64,
    capabilities: ['completion', 'tools', 'insert'],
    size: 19_851_349_856,
  }),
  model({
    name: 'gpt-oss:20b',
    family: 'gptoss',
    arch: 'gptoss',
    basename: 'Gpt Oss',
    parameterSize: '20.9B',
    parameterCount: 20_914_757_184,
    quantization: 'MXFP4',
    format: 'gguf',
    contextLength: 131_072,
    embeddingLength: 2880,
    blockCount: 24,
    capabilities: ['completion', 'tools', 'thinking'],
    size: 13_780_154_624,
  }),
  model({
    name: 'gemma3:12b',
    family: 'gemma3',
    arch: 'gemma3',
    basename: 'Gemma 3',
    parameterSize: '12.2B',
    parameterCount: 12_187_325_040,
    quantization: 'Q4_K_M',
    format: 'gguf',
    contextLength: 131_072,
    embeddingLength: 3840,
    blockCount: 48,
    capabilities: ['completion', 'vision'],
    size: 8_149_190_253,
  }),
  model({
    name: 'llava:7b',
    family: 'llama',
    families: ['llama', 'clip'],
    arch: 'llama',
    basename: 'LLaVA',
    parameterSize: '7B',
    parameterCount: 7_241_732_096,
    quantization: 'Q4_0',
    format: 'gguf',
    contextLength: 32_768,
    embeddingLength: 4096,
    blockCount: 32,
    capabilities: ['completion', 'vision'],
    size: 4_733_363_377,
  }),
  model({
    name: 'nomic-embed-text:latest',
    family: 'nomic-bert',
    arch: 'nomic-bert',
    basename: 'nomic-embed-text-v1.5',
    parameterSize: '137M',
    parameterCount: 136_727_040,
    quantization: 'F16',
    format: 'gguf',
    contextLength: 2048,
    embeddingLength: 768,
    blockCount: 12,
    capabilities: ['embedding'],
    size: 274_302_450,
  }),
  model({
    name: 'mxbai-embed-large:latest',
    family: 'bert',
    arch: 'bert',
    basename: 'mxbai-embed-large-v1',
    parameterSize: '334M',
    parameterCount: 334_090_240,
    quantization: 'F16',
    format: 'gguf',
    contextLength: 512,
    embeddingLength: 1024,
    blockCount: 24,
    capabilities: ['embedding'],
    size: 669_615_493,
  }),
  model({
    name: 'x/z-image-turbo:latest',
    family: 'z-image',
    arch: 'z-image',
    basename: 'Z-Image-Turbo',
    parameterSize: '6.2B',
    parameterCount: 6_154_000_000,
    quantization: 'FP8',
    format: 'safetensors',
    contextLength: 512,
    embeddingLength: 3840,
    blockCount: 30,
    capabilities: ['image'],
    size: 12_876_543_210,
  }),
];

/** `llama3.2` → `llama3.2:latest`: Ollama's default tag. */
export function withTag(name: string): string {
  return name.indexOf(':', name.lastIndexOf('/') + 1) === -1 ? `${name}:latest` : name;
}

/** The catalogue entry for `name` (tag optional), or a plausible invented one for unknown names. */
export function catalogEntry(name: string): CatalogModel {
  const tagged = withTag(name.trim());
  return CATALOG.find((entry) => entry.name === tagged) ?? inventModel(tagged);
}

/** Whether the built-in catalogue knows `name`. */
export function isCatalogued(name: string): boolean {
  const tagged = withTag(name.trim());
  return CATALOG.some((entry) => entry.name === tagged);
}

/** A plausible entry for a name the catalogue does not know: size from a `:7b`-style tag, else ~4 GB. */
function inventModel(name: string): CatalogModel {
  const billions = parameterBillions(name);
  const embedding = /embed/i.test(name);
  const family = (baseName(name).match(/^[a-z]+[0-9.]*/i)?.[0] ?? 'llama').toLowerCase();
  return model({
    name,
    family,
    arch: family,
    parameterSize: billions < 1 ? `${Math.round(billions * 1000)}M` : `${billions}B`,
    parameterCount: Math.round(billions * 1e9),
    quantization: embedding ? 'F16' : 'Q4_K_M',
    format: 'gguf',
    contextLength: embedding ? 2048 : 32_768,
    embeddingLength: embedding ? 768 : 4096,
    blockCount: 32,
    capabilities: embedding ? ['embedding'] : ['completion'],
    // Q4_K_M is ~4.85 bits per weight; F16 is 2 bytes.
    size: Math.round(billions * 1e9 * (embedding ? 2 : 0.61)),
  });
}

function parameterBillions(name: string): number {
  const match = name.match(/:(\d+(?:\.\d+)?)([bm])/i);
  if (match === null) return /embed/i.test(name) ? 0.137 : 7;
  const value = Number(match[1]);
  return match[2]?.toLowerCase() === 'm' ? value / 1000 : value;
}

/** The 64-hex digest Ollama lists for a model (deterministic from the name). */
export function modelDigest(name: string): string {
  return sha256Hex(`sim-model:${name}`);
}

export function hasCapability(entry: CatalogModel, capability: ModelCapability): boolean {
  return entry.capabilities.includes(capability);
}
