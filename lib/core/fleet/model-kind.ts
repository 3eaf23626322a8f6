/**
 * What a runtime model does, from what the node says about it (Ollama capabilities) or, when it says
 * nothing, from its name and family. Shared by the heartbeat and poll mappers (ARCHITECTURE.md §8). Pure.
 */
import type { ModelKind } from './node';

/**
 * Capabilities for a model the node described nothing about. Embedding models have no flag in older
 * agents' heartbeats (anchor §1.3): a name containing `embed`, or a BERT-family model, is an embedder.
 */
export function inferCapabilities(name: string, family?: string): readonly string[] {
  const embeds = name.toLowerCase().includes('embed') || (family !== undefined && /bert$/i.test(family));
  return embeds ? ['embedding'] : ['completion'];
}

/** Ollama's `details.family` (`llama`, `nomic-bert`), when the node gave one. */
export function familyOf(details: Readonly<Record<string, unknown>>): string | undefined {
  const { family } = details as { readonly family?: unknown };
  return typeof family === 'string' && family !== '' ? family : undefined;
}

/** `embedding` → embedding model, `image` → image model, anything else is a language model. */
export function kindFromCapabilities(capabilities: readonly string[]): ModelKind {
  if (capabilities.includes('embedding')) return 'embedding';
  if (capabilities.includes('image')) return 'image';
  return 'llm';
}

/**
 * The capabilities a node reported, or the inferred ones. An empty list says nothing (every Ollama
 * model completes or embeds; Ollama 0.33 under-reports in `/api/tags`), so it falls through.
 */
export function capabilitiesOrInferred(
  reported: readonly string[] | null | undefined,
  name: string,
  family?: string,
): readonly string[] {
  if (reported !== null && reported !== undefined && reported.length > 0) return reported;
  return inferCapabilities(name, family);
}
