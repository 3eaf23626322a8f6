/**
 * A request's place in the waiting line (issue 43): its application (lib/core/queue/application: the
 * id of the client or operator key it was admitted with, else its first tag, else the client's address) and its priority — the one it states
 * (`metadata.priority` in the body, `X-Fleet-Priority`; an unknown value is a 400 naming the field), else
 * its application's default (lib/core/queue/sharing-policy), else `normal`. Every routed route builds one
 * before it routes, so bad input is refused before anything is sent.
 */
import { applicationOf } from '../../core/queue/application';
import { PRIORITY_HEADER, statedPriority } from '../../core/queue/priority';
import { defaultPriority } from '../../core/queue/sharing-policy';
import type { WaitClaim } from '../../core/queue/wait-line';
import type { FleetConfig } from '../platform/config';
import type { HttpRequest } from './request';

export interface ClaimSources {
  readonly tags: readonly string[];
  /** The body's `metadata.priority`, unvalidated, where the family's body has `metadata`. */
  readonly metadataPriority?: unknown;
}

export function requestClaim(
  request: HttpRequest,
  sources: ClaimSources,
  config: Pick<FleetConfig, 'sharing'>,
): WaitClaim {
  const stated = statedPriority(sources.metadataPriority, request.header(PRIORITY_HEADER));
  const app = applicationOf({
    keyId: request.caller.keyId,
    tags: sources.tags,
    clientAddress: request.sourceIp,
  });
  return { app, priority: stated ?? defaultPriority(config.sharing, app, sources.tags) };
}
