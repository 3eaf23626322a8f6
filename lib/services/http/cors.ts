/**
 * Cross-origin access for browser clients (spec §4.8, FLEET_CORS_ORIGINS), applied by the handler wrapper
 * to every route, errors included:
 * - unset (or empty): nothing here runs; no header is added and OPTIONS is an ordinary method;
 * - a listed origin is echoed in `Access-Control-Allow-Origin` (with `Vary: Origin`); `*` inside an entry
 *   stands for one or more characters of a scheme, host or port (`http://localhost:*`,
 *   `https://*.example.com`); a bare `*` allows any origin and is answered `*`. No credentials mode is
 *   offered (`Access-Control-Allow-Credentials` is never sent): clients authenticate with headers the
 *   page sets itself (`Authorization`, `x-api-key`), which CORS allows like any other header;
 * - every OPTIONS request is answered here, before any key check (browsers send preflights without
 *   credentials): 204 with the path's methods, the requested headers echoed, a max age (and the private
 *   network allowed when Chromium asks), or with no CORS header at all for an origin that is not listed
 *   (the browser then blocks);
 * - every header a response carries beyond the CORS-safelisted ones is in `Access-Control-Expose-Headers`
 *   (X-Fleet-*, X-Output-Tokens, Retry-After, request-id …), streams included: headers are final before
 *   the first byte, so the list is made from the response's own headers when it starts.
 * What an entry may look like is checked when the config is read (lib/services/platform/cors-origin-entry).
 * Rule 6 (an HTTPS page cannot call a plain-HTTP router) is the browser's mixed-content block: no
 * header lifts it.
 */
import type { LambdaHttpEvent } from './request';
import type { FailedReply, ResponseMeta, ResponseSink } from './response-sink';

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** Response headers a page reads without their being exposed (Fetch standard). */
const SAFELISTED = new Set([
  'cache-control',
  'content-language',
  'content-length',
  'content-type',
  'expires',
  'last-modified',
  'pragma',
]);

/** A comma list of header names (token characters), as `Access-Control-Request-Headers` carries. */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9a-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9a-z-]+)*$/i;

export interface CorsPolicy {
  /** The `Access-Control-Allow-Origin` value for a request's Origin, or undefined when it is not allowed. */
  allowOrigin(origin: string | undefined): string | undefined;
  /** True when the answer depends on the Origin (a list, not a bare `*`): responses say `Vary: Origin`. */
  readonly variesByOrigin: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\-]/g, '\\$&');
}

function compileEntry(entry: string): (origin: string) => boolean {
  const wanted = entry.toLowerCase().replace(/\/+$/, '');
  if (!wanted.includes('*')) return (origin) => origin === wanted;
  // `*` spans characters of a scheme, host name or port, never `/`, `:` or `@`: `https://*.example.com`
  // matches `https://a.b.example.com` but not `https://example.com` or `https://a.example.com:8443`.
  const pattern = new RegExp(`^${wanted.split('*').map(escapeRegExp).join('[a-z0-9.-]+')}$`);
  return (origin) => pattern.test(origin);
}

/** The policy for FLEET_CORS_ORIGINS; undefined when unset or empty (no CORS handling at all). */
export function createCorsPolicy(origins: readonly string[] | undefined): CorsPolicy | undefined {
  if (origins === undefined || origins.length === 0) return undefined;
  if (origins.includes('*'))
    return { variesByOrigin: false, allowOrigin: (origin) => (origin === undefined ? undefined : '*') };
  const tests = origins.map(compileEntry);
  return {
    variesByOrigin: true,
    allowOrigin(origin) {
      if (origin === undefined) return undefined;
      const lower = origin.toLowerCase();
      return tests.some((test) => test(lower)) ? origin : undefined;
    },
  };
}

/** A request header read straight off the event (names in any case), before the request view is built. */
export function eventHeader(event: LambdaHttpEvent, name: string): string | undefined {
  const headers = event.headers;
  if (headers === undefined || headers === null) return undefined;
  const direct = headers[name];
  if (direct !== undefined) return direct;
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

function withVary(headers: Record<string, string>, names: string): void {
  const key = Object.keys(headers).find((header) => header.toLowerCase() === 'vary') ?? 'vary';
  const current = headers[key];
  headers[key] = current === undefined || current === '' ? names : `${current}, ${names}`;
}

/**
 * The headers of the answer to an OPTIONS request. `methods` are the ones the path's routes accept
 * (the caller's route table knows them).
 */
export function preflightHeaders(
  policy: CorsPolicy,
  event: LambdaHttpEvent,
  methods: readonly string[],
): Record<string, string> {
  const headers: Record<string, string> = { allow: [...methods, 'OPTIONS'].join(', ') };
  const vary = 'Access-Control-Request-Method, Access-Control-Request-Headers';
  withVary(headers, policy.variesByOrigin ? `Origin, ${vary}` : vary);
  const allowed = policy.allowOrigin(eventHeader(event, 'origin'));
  if (allowed === undefined) return headers;
  headers['access-control-allow-origin'] = allowed;
  headers['access-control-allow-methods'] = methods.join(', ');
  const requested = eventHeader(event, 'access-control-request-headers')?.trim();
  if (requested !== undefined && requested !== '' && requested.length <= 4096 && HEADER_LIST.test(requested)) {
    headers['access-control-allow-headers'] = requested;
  }
  // A public page calling the router inside a private network: Chromium's Private Network Access asks first.
  if (eventHeader(event, 'access-control-request-private-network') === 'true') {
    headers['access-control-allow-private-network'] = 'true';
  }
  headers['access-control-max-age'] = String(PREFLIGHT_MAX_AGE_SECONDS);
  return headers;
}

/** A response's meta with the CORS headers for `allowed` (the Allow-Origin value, if any) added. */
export function withCorsHeaders(policy: CorsPolicy, meta: ResponseMeta, allowed: string | undefined): ResponseMeta {
  const headers: Record<string, string> = { ...meta.headers };
  if (policy.variesByOrigin) withVary(headers, 'Origin');
  if (allowed !== undefined) {
    const exposed = Object.keys(headers).filter((name) => {
      const lower = name.toLowerCase();
      return !SAFELISTED.has(lower) && lower !== 'vary' && !lower.startsWith('access-control-');
    });
    headers['access-control-allow-origin'] = allowed;
    if (exposed.length > 0) headers['access-control-expose-headers'] = exposed.join(', ');
  }
  return { ...meta, headers };
}

/** A sink whose status line, whenever and however it is fixed, carries the CORS headers. */
class CorsSink implements ResponseSink {
  constructor(
    private readonly inner: ResponseSink,
    private readonly policy: CorsPolicy,
    private readonly allowed: string | undefined,
  ) {}

  get streaming(): boolean {
    return this.inner.streaming;
  }

  get started(): boolean {
    return this.inner.started;
  }

  get ended(): boolean {
    return this.inner.ended;
  }

  get signal(): AbortSignal {
    return this.inner.signal;
  }

  get clientGone() {
    return this.inner.clientGone;
  }

  get failure(): FailedReply | undefined {
    return this.inner.failure;
  }

  noteFailure(failure: FailedReply): void {
    this.inner.noteFailure(failure);
  }

  start(meta: ResponseMeta): void {
    this.inner.start(withCorsHeaders(this.policy, meta, this.allowed));
  }

  write(chunk: string | Uint8Array): Promise<void> {
    if (!this.inner.started) this.start({ statusCode: 200 });
    return this.inner.write(chunk);
  }

  end(chunk?: string | Uint8Array): Promise<void> {
    if (!this.inner.started && !this.inner.ended) this.start({ statusCode: 200 });
    return this.inner.end(chunk);
  }
}

/** The sink a route writes to when CORS is on: the request's Origin decides what is added. */
export function corsSink(policy: CorsPolicy, event: LambdaHttpEvent, sink: ResponseSink): ResponseSink {
  return new CorsSink(sink, policy, policy.allowOrigin(eventHeader(event, 'origin')));
}
