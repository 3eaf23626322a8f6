/**
 * Deterministic embedding vectors for the simulated Ollama `/api/embed` and the text-embedding sidecar:
 * a bag of hash-seeded word vectors plus a little text-specific noise, L2-normalised. Texts that share
 * words point the same way, so similarity search over simulated embeddings behaves sensibly.
 */
import { fnv1a32, seededRandom } from './hash';

const MAX_WORDS = 256;
const TEXT_NOISE = 0.15;

/** Lower-case alphanumeric words of `text`. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function addSeeded(target: Float64Array, seed: number, weight: number): void {
  const random = seededRandom(seed);
  for (let i = 0; i < target.length; i++) {
    target[i] = (target[i] ?? 0) + weight * (random() * 2 - 1);
  }
}

/** Scales `vector` to unit length (a zero vector stays zero). Values are rounded like float32 output. */
export function normalize(vector: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] ?? 0) ** 2;
  const norm = Math.sqrt(sum);
  const out = new Array<number>(vector.length);
  for (let i = 0; i < vector.length; i++) {
    const value = norm === 0 ? 0 : (vector[i] ?? 0) / norm;
    out[i] = Math.round(value * 1e9) / 1e9;
  }
  return out;
}

/**
 * The unit vector for `text` with `dimensions` entries. `salt` (the model name) makes different models
 * disagree, as real ones do.
 */
export function embedText(text: string, dimensions: number, salt: string): number[] {
  const vector = new Float64Array(dimensions);
  for (const word of wordsOf(text).slice(0, MAX_WORDS)) addSeeded(vector, fnv1a32(`${salt}|w|${word}`), 1);
  addSeeded(vector, fnv1a32(`${salt}|t|${text}`), TEXT_NOISE);
  return normalize(vector);
}

/** Cosine similarity of two vectors of equal length. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
