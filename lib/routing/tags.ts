/**
 * Request tags for per-tag analytics (issue: routing item 6; HTTP interface "Tags"): body
 * `metadata.tags`, the `X-Service-Tags` header (a comma list) and body `user` (as `user:<value>`),
 * merged in that order, trimmed, empties and non-strings dropped, duplicates removed keeping the first.
 * The body fields arrive unvalidated (`unknown`): a wrong type is ignored, not an error, because tags
 * are analytics and must never fail a request. Pure.
 */

export interface TagSources {
  readonly metadataTags?: unknown;
  readonly headerValue?: string | undefined;
  readonly user?: unknown;
}

export function mergeTags(sources: TagSources): string[] {
  const seen = new Set<string>();
  const add = (value: unknown, prefix = '') => {
    if (typeof value !== 'string') return;
    const trimmed = value.trim();
    if (trimmed !== '') seen.add(`${prefix}${trimmed}`);
  };
  if (Array.isArray(sources.metadataTags)) for (const tag of sources.metadataTags) add(tag);
  if (sources.headerValue !== undefined) for (const tag of sources.headerValue.split(',')) add(tag);
  add(sources.user, 'user:');
  return [...seen];
}
