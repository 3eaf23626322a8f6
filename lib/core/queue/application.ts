/**
 * Which application a request comes from, for fair sharing (issue 43): its API key when the router has
 * keys (`key:<id>`, the key's id — a short digest, never the key), else its first tag (`tag:<tag>`), else
 * the client's address (`client:<ip>`). Without configured keys a presented key is not an identity (SDKs
 * send placeholders such as `ollama`), so it is not used. Pure.
 */

export interface ApplicationSources {
  /** The id of the API key the request was admitted with, when the router checks keys. */
  readonly keyId?: string | undefined;
  readonly tags: readonly string[];
  readonly clientAddress: string;
}

export function applicationOf(sources: ApplicationSources): string {
  if (sources.keyId !== undefined) return `key:${sources.keyId}`;
  const tag = sources.tags[0];
  if (tag !== undefined) return `tag:${tag}`;
  return `client:${sources.clientAddress === '' ? 'unknown' : sources.clientAddress}`;
}
