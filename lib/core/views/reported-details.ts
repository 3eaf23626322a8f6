/**
 * What the Ollama views may say about a model's `details` and `digest` (issue 20 item 6): a value a node
 * reported, or no key at all — never an empty string standing for "unknown", which strict clients take
 * for a real value. `parent_model: ""` and `families` are kept as sent: empty is Ollama's own "none" there.
 * Pure.
 */

/** Keys whose empty string only ever means "not reported". */
const REPORTED_ONLY = new Set(['format', 'family', 'parameter_size', 'quantization_level']);

/** The details merged left to right (later wins), without empty strings for the reported-only keys. */
export function reportedDetails(...sources: readonly Readonly<Record<string, unknown>>[]): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const source of sources) {
    for (const [key, value] of Object.entries(source)) {
      if (value === undefined || (REPORTED_ONLY.has(key) && value === '')) continue;
      details[key] = value;
    }
  }
  return details;
}

/** `{digest}` when one is known, else nothing to spread. */
export function digestField(digest: string): { readonly digest?: string } {
  return digest !== '' ? { digest } : {};
}
