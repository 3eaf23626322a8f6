/**
 * The BPE encoder behind every token count: OpenAI's `cl100k_base` from `gpt-tokenizer` (pure JS). The
 * same encoding the reference counts with (anchor §3.7), and the base of Llama 3's vocabulary. Its ranks
 * are ~1 MB of JavaScript that cost ~100–150 ms to load and build, so the encoder is required on the first
 * count, not at module load: a handler that never counts pays nothing at cold start. In a Lambda bundle
 * the package is external and shipped beside the handler (scripts/build.mjs), like the SDK in
 * `lib/services/store/sdk.ts`.
 *
 * User text is never special: `<|endoftext|>` in a prompt is counted as the characters it is, never as a
 * control token and never as an error (the library's default is to throw).
 */
type Cl100k = typeof import('gpt-tokenizer/encoding/cl100k_base');

/**
 * Pieces whose merges are remembered, so a history resent every turn is counted ~2–3× faster. 275k tokens
 * of docs and code have 6,200 distinct multi-token pieces; an entry is at most a few KB (pieces are cut at
 * 128 characters), so 10,000 bound the cache near 25 MB where the library's default of 100,000 would not.
 */
const MERGE_CACHE_ENTRIES = 10_000;
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

let encoder: Cl100k | undefined;

function cl100k(): Cl100k {
  if (encoder === undefined) {
    const loaded = require('gpt-tokenizer/encoding/cl100k_base') as Cl100k;
    loaded.setMergeCacheSize(MERGE_CACHE_ENTRIES);
    encoder = loaded;
  }
  return encoder;
}

/** Tokens of one segment (see `token-segments.ts`: callers bound the length of a BPE piece first). */
export function countSegmentTokens(segment: string): number {
  return segment === '' ? 0 : cl100k().countTokens(segment, PLAIN_TEXT);
}

/**
 * The segment's BPE pieces (the encoder's pre-tokenizer matches, in order) with their token counts.
 * A piece is whole characters, so decoding its tokens gives back exactly its text.
 */
export function* segmentPieces(segment: string): Generator<{ readonly text: string; readonly tokens: number }> {
  const { encodeGenerator, decode } = cl100k();
  for (const tokens of encodeGenerator(segment, PLAIN_TEXT)) {
    yield { text: decode(tokens), tokens: tokens.length };
  }
}
