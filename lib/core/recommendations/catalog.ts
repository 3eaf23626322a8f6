/**
 * The model catalog the recommender picks from (issue 22 item 4; anchor §6.5): widely used Ollama models,
 * shipped as data. Every figure is APPROXIMATE and written from the public model cards and the Ollama
 * library as we know them, not measured here and not copied from another project:
 * - `name`: the Ollama tag as `ollama pull` takes it; `latest` marks the tag the untagged name resolves to.
 * - `parameters`: the parameter count the publisher states (for mixtures of experts, the total).
 * - `disk_gb`: the download size the Ollama library lists for that tag (its default quantisation, mostly
 *   Q4_K_M), in GB, rounded to 0.1.
 * - `ram_gb`: memory to run it at that quantisation with Ollama's default context: the weights, plus the
 *   KV cache and runtime buffers, taken as 15 % of the weights + 0.75 GB and rounded up to 0.5 GB (a
 *   larger `num_ctx` needs more); embedding models keep no long KV cache: their weights plus a small
 *   buffer.
 * - `category`: what it is best used for, in the router's words (`general`, `coding`, `reasoning`,
 *   `vision`, `embedding`, `fast-chat`).
 * - `quality`: 0–100, our editorial reading of where the model stands on public benchmarks and
 *   leaderboards (knowledge, coding, chat preference) at its size. Comparable within a category, a
 *   ranking aid only, never a measurement.
 * Pure data.
 */

export type ModelCategory = 'general' | 'coding' | 'reasoning' | 'vision' | 'embedding' | 'fast-chat';

export const MODEL_CATEGORIES: readonly ModelCategory[] = [
  'general',
  'coding',
  'reasoning',
  'vision',
  'fast-chat',
  'embedding',
];

export interface CatalogModel {
  readonly name: string;
  readonly display_name: string;
  readonly family: string;
  readonly parameters: string;
  readonly ram_gb: number;
  readonly disk_gb: number;
  readonly category: ModelCategory;
  readonly quality: number;
  /** The tag `<base>` and `<base>:latest` resolve to. */
  readonly latest?: true;
}

type Row = readonly [string, string, string, string, number, number, ModelCategory, number, boolean?];

// name, display name, family, parameters, ram_gb, disk_gb, category, quality, latest
const ROWS: readonly Row[] = [
  ['llama3.2:1b', 'Llama 3.2 1B', 'llama3.2', '1.2B', 2.5, 1.3, 'fast-chat', 40],
  ['llama3.2:3b', 'Llama 3.2 3B', 'llama3.2', '3.2B', 3.5, 2.0, 'fast-chat', 52, true],
  ['llama3.1:8b', 'Llama 3.1 8B', 'llama3.1', '8.0B', 6.5, 4.9, 'general', 64, true],
  ['llama3.3:70b', 'Llama 3.3 70B', 'llama3.3', '70.6B', 50.5, 43, 'general', 84, true],
  ['qwen2.5:7b', 'Qwen 2.5 7B', 'qwen2.5', '7.6B', 6.5, 4.7, 'general', 67, true],
  ['qwen2.5:14b', 'Qwen 2.5 14B', 'qwen2.5', '14.8B', 11.5, 9.0, 'general', 74],
  ['qwen2.5:32b', 'Qwen 2.5 32B', 'qwen2.5', '32.8B', 24, 20, 'general', 80],
  ['qwen2.5:72b', 'Qwen 2.5 72B', 'qwen2.5', '72.7B', 55, 47, 'general', 85],
  ['qwen3:4b', 'Qwen 3 4B', 'qwen3', '4.0B', 4, 2.5, 'fast-chat', 60],
  ['qwen3:8b', 'Qwen 3 8B', 'qwen3', '8.2B', 7, 5.2, 'general', 71, true],
  ['qwen3:14b', 'Qwen 3 14B', 'qwen3', '14.8B', 11.5, 9.3, 'general', 76],
  ['qwen3:30b', 'Qwen 3 30B-A3B (MoE)', 'qwen3', '30.5B', 23, 19, 'general', 79],
  ['qwen3:32b', 'Qwen 3 32B', 'qwen3', '32.8B', 24, 20, 'general', 82],
  ['gemma3:1b', 'Gemma 3 1B', 'gemma3', '1.0B', 2, 0.8, 'fast-chat', 38],
  ['gemma3:4b', 'Gemma 3 4B', 'gemma3', '4.3B', 5, 3.3, 'vision', 58, true],
  ['gemma3:12b', 'Gemma 3 12B', 'gemma3', '12.2B', 10.5, 8.1, 'vision', 70],
  ['gemma3:27b', 'Gemma 3 27B', 'gemma3', '27.4B', 20.5, 17, 'vision', 78],
  ['mistral:7b', 'Mistral 7B Instruct', 'mistral', '7.2B', 5.5, 4.1, 'general', 55, true],
  ['mistral-nemo:12b', 'Mistral NeMo 12B', 'mistral-nemo', '12.2B', 9, 7.1, 'general', 63, true],
  ['mistral-small:24b', 'Mistral Small 24B', 'mistral-small', '23.6B', 17, 14, 'general', 75, true],
  ['phi4-mini:3.8b', 'Phi-4 mini 3.8B', 'phi4-mini', '3.8B', 4, 2.5, 'fast-chat', 56, true],
  ['phi4:14b', 'Phi-4 14B', 'phi4', '14.7B', 11.5, 9.1, 'reasoning', 73, true],
  ['deepseek-r1:7b', 'DeepSeek-R1 Distill 7B', 'deepseek-r1', '7.6B', 6.5, 4.7, 'reasoning', 62],
  ['deepseek-r1:8b', 'DeepSeek-R1 Distill 8B', 'deepseek-r1', '8.2B', 7, 5.2, 'reasoning', 66, true],
  ['deepseek-r1:14b', 'DeepSeek-R1 Distill 14B', 'deepseek-r1', '14.8B', 11.5, 9.0, 'reasoning', 72],
  ['deepseek-r1:32b', 'DeepSeek-R1 Distill 32B', 'deepseek-r1', '32.8B', 24, 20, 'reasoning', 79],
  ['deepseek-r1:70b', 'DeepSeek-R1 Distill 70B', 'deepseek-r1', '70.6B', 50.5, 43, 'reasoning', 81],
  ['qwq:32b', 'QwQ 32B', 'qwq', '32.8B', 24, 20, 'reasoning', 80, true],
  ['gpt-oss:20b', 'gpt-oss 20B', 'gpt-oss', '20.9B', 17, 14, 'reasoning', 78, true],
  ['gpt-oss:120b', 'gpt-oss 120B', 'gpt-oss', '116.8B', 75.5, 65, 'reasoning', 87],
  ['qwen2.5-coder:1.5b', 'Qwen 2.5 Coder 1.5B', 'qwen2.5-coder', '1.5B', 2, 1.0, 'coding', 42],
  ['qwen2.5-coder:7b', 'Qwen 2.5 Coder 7B', 'qwen2.5-coder', '7.6B', 6.5, 4.7, 'coding', 68, true],
  ['qwen2.5-coder:14b', 'Qwen 2.5 Coder 14B', 'qwen2.5-coder', '14.8B', 11.5, 9.0, 'coding', 75],
  ['qwen2.5-coder:32b', 'Qwen 2.5 Coder 32B', 'qwen2.5-coder', '32.8B', 24, 20, 'coding', 83],
  ['qwen3-coder:30b', 'Qwen 3 Coder 30B-A3B (MoE)', 'qwen3-coder', '30.5B', 23, 19, 'coding', 85, true],
  ['deepseek-coder-v2:16b', 'DeepSeek-Coder-V2 Lite 16B', 'deepseek-coder-v2', '15.7B', 11, 8.9, 'coding', 70, true],
  ['codellama:13b', 'Code Llama 13B', 'codellama', '13.0B', 9.5, 7.4, 'coding', 45],
  ['codegemma:7b', 'CodeGemma 7B', 'codegemma', '8.5B', 6.5, 5.0, 'coding', 50, true],
  ['llava:7b', 'LLaVA 1.6 7B', 'llava', '7.2B', 6.5, 4.7, 'vision', 48, true],
  ['llama3.2-vision:11b', 'Llama 3.2 Vision 11B', 'llama3.2-vision', '10.7B', 10, 7.8, 'vision', 63, true],
  ['qwen2.5vl:7b', 'Qwen 2.5 VL 7B', 'qwen2.5vl', '8.3B', 8, 6.0, 'vision', 71, true],
  ['minicpm-v:8b', 'MiniCPM-V 2.6 8B', 'minicpm-v', '8.1B', 7.5, 5.5, 'vision', 62, true],
  ['nomic-embed-text:v1.5', 'Nomic Embed Text v1.5', 'nomic-bert', '137M', 0.5, 0.3, 'embedding', 58, true],
  ['mxbai-embed-large:335m', 'mxbai Embed Large', 'bert', '335M', 1, 0.7, 'embedding', 62, true],
  ['bge-m3:567m', 'BGE-M3', 'bge-m3', '567M', 1.5, 1.2, 'embedding', 66, true],
  ['qwen3-embedding:8b', 'Qwen 3 Embedding 8B', 'qwen3-embedding', '7.6B', 6, 4.7, 'embedding', 75, true],
  ['all-minilm:22m', 'all-MiniLM-L6 v2', 'all-minilm', '23M', 0.5, 0.05, 'embedding', 40, true],
];

export const MODEL_CATALOG: readonly CatalogModel[] = ROWS.map(
  ([name, display_name, family, parameters, ram_gb, disk_gb, category, quality, latest]) => ({
    name,
    display_name,
    family,
    parameters,
    ram_gb,
    disk_gb,
    category,
    quality,
    ...(latest === true ? { latest: true as const } : {}),
  }),
);
