/**
 * Request tags for per-tag analytics (issue: routing item 6; HTTP interface "Tags"): body
 * `metadata.tags`, the `X-Service-Tags` header (a comma list) and body `user` (as `user:<value>`),
 * merged in that order, trimmed, empties and non-strings dropped, duplicates removed keeping the first.
 * The body fields arrive unvalidated (`unknown`): a wrong type is ignored, not an error, because tags
 * are analytics and must never fail a request. So they are bounded, not refused: a tag is cut to
 * `MAX_TAG_CHARS` characters (a tag is a table key of its daily usage, and the table refuses keys over
 * 1,024 bytes), an unpaired surrogate becomes U+FFFD (the table stores UTF-8), and a request keeps its
 * first `MAX_TAGS` tags (each is a counter write per flush). Pure.
 */

/** Longest tag kept, in UTF-16 units: at most 768 bytes of UTF-8, within the table's 1,024-byte sort key. */
export const MAX_TAG_CHARS = 256;
/** Tags kept per request. */
export const MAX_TAGS = 64;

/** A high surrogate without its low half, or a low one without its high half. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `value` cut to `MAX_TAG_CHARS`, never between the halves of a surrogate pair. */
function bounded(value: string): string {
  if (value.length <= MAX_TAG_CHARS) return value;
  const end = /[\uD800-\uDBFF]/.test(value.charAt(MAX_TAG_CHARS - 1)) ? MAX_TAG_CHARS - 1 : MAX_TAG_CHARS;
  return value.slice(0, end).trimEnd();
}

export interface TagSources {
  readonly metadataTags?: unknown;
  readonly headerValue?: string | undefined;
  readonly user?: unknown;
}

export function mergeTags(sources: TagSources): string[] {
  // Most requests carry no tags: no set, no closure.
  if (sources.metadataTags === undefined && sources.headerValue === undefined && sources.user === undefined) return [];
  const seen = new Set<string>();
  const add = (value: unknown, prefix = '') => {
    if (typeof value !== 'string' || seen.size >= MAX_TAGS) return;
    const trimmed = value.trim();
    if (trimmed !== '') seen.add(bounded(`${prefix}${trimmed}`.replace(UNPAIRED_SURROGATE, '\uFFFD')));
  };
  if (Array.isArray(sources.metadataTags)) for (const tag of sources.metadataTags) add(tag);
  if (sources.headerValue !== undefined) for (const tag of sources.headerValue.split(',')) add(tag);
  add(sources.user, 'user:');
  return [...seen];
}
