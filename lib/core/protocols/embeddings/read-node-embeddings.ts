/**
 * Reads and checks a node's embedding reply — Ollama's `/api/embed` (`{model, embeddings,
 * total_duration, load_duration, prompt_eval_count}`) or a text-embedding sidecar's `/embed`
 * (`{embeddings}`) — and fails with 502 when the router cannot vouch for it (spec §4.2 item 4, §7):
 * not JSON, no `embeddings`, a vector that is not an array of numbers or is empty, vectors of different
 * widths, a different number of vectors than inputs, or a width other than the `dimensions` the client
 * asked for (the node ignored it). The vectors are checked in place, never copied: a batch can hold
 * hundreds of thousands of numbers. Pure.
 */
import { UpstreamError } from '../../errors';
import { parseJson } from '../../wire/json';

export interface ExpectedEmbeddings {
  /** One vector per input, in order. */
  readonly count: number;
  /** The width the client asked for, when it did. */
  readonly dimensions?: number;
}

export interface NodeEmbeddings {
  readonly embeddings: readonly (readonly number[])[];
  /** Ollama's own count of the tokens it embedded, when it sent one. */
  readonly promptEvalCount?: number;
  /** Nanoseconds, when the node sent them. */
  readonly totalDuration?: number;
  readonly loadDuration?: number;
}

const NO_EMBEDDINGS = "the node's embedding reply has no embeddings array";

function isVector(value: unknown): value is number[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const item of value) if (typeof item !== 'number') return false;
  return true;
}

/** A non-negative integer metric, or undefined (Go drops zero metrics: `omitempty`). */
function metric(reply: object, name: string): number | undefined {
  const value: unknown = Reflect.get(reply, name);
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function checkVectors(embeddings: readonly unknown[], expected: ExpectedEmbeddings): void {
  if (embeddings.length !== expected.count) {
    throw new UpstreamError(`the node returned ${embeddings.length} vectors for ${expected.count} inputs`);
  }
  let width: number | undefined;
  embeddings.forEach((vector, index) => {
    if (!isVector(vector)) throw new UpstreamError(`the node's vector ${index} is not a non-empty array of numbers`);
    width ??= vector.length;
    if (vector.length !== width) {
      throw new UpstreamError(`the node's vectors have different widths (${width} and ${vector.length})`);
    }
  });
  if (expected.dimensions !== undefined && width !== undefined && width !== expected.dimensions) {
    throw new UpstreamError(`the node ignored dimensions ${expected.dimensions}: its vectors have ${width}`);
  }
}

export function readNodeEmbeddings(body: string, expected: ExpectedEmbeddings): NodeEmbeddings {
  const parsed = parseJson(body);
  if (!parsed.ok) throw new UpstreamError(`the node's embedding reply is not JSON: ${parsed.error}`);
  const reply = parsed.value;
  if (typeof reply !== 'object' || reply === null) throw new UpstreamError(NO_EMBEDDINGS);
  const embeddings: unknown = Reflect.get(reply, 'embeddings');
  if (!Array.isArray(embeddings)) throw new UpstreamError(NO_EMBEDDINGS);
  checkVectors(embeddings, expected);
  const promptEvalCount = metric(reply, 'prompt_eval_count');
  const totalDuration = metric(reply, 'total_duration');
  const loadDuration = metric(reply, 'load_duration');
  return {
    embeddings: embeddings as number[][],
    ...(promptEvalCount !== undefined ? { promptEvalCount } : {}),
    ...(totalDuration !== undefined ? { totalDuration } : {}),
    ...(loadDuration !== undefined ? { loadDuration } : {}),
  };
}
