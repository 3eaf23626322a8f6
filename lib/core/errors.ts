/**
 * The router's one error hierarchy. Every failure the router reports to a client is a `RouterError`
 * carrying its HTTP status, a stable code, whether a client retry can help, and an optional
 * Retry-After. `lib/services/http/render-error.ts` turns these into the three wire families (ARCHITECTURE.md §9.1).
 * Pure: translators and scorers may throw these.
 */

export interface RouterErrorOptions {
  readonly code?: string;
  readonly retryable?: boolean;
  readonly retryAfterSeconds?: number;
  readonly param?: string;
  readonly cause?: unknown;
  /** The technical cause (a node's URL, an undici code): for the operator's log and trace, never the client. */
  readonly detail?: string;
}

export class RouterError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  /** The request field at fault, as a dotted path (`messages.0.content`), when there is one. */
  readonly param: string | undefined;
  /** What the operator's log says beyond the message: the URL, code or raw output the client is not shown. */
  readonly detail: string | undefined;
  /**
   * Response headers known when it failed — the `X-Fleet-*` routing headers of the node that was chosen
   * and failed (`withHeaders`). Rendered with the error.
   */
  headers: Readonly<Record<string, string>> | undefined;

  constructor(status: number, message: string, options: RouterErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = options.code ?? 'router_error';
    this.retryable = options.retryable ?? status >= 500;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.param = options.param;
    this.detail = options.detail;
    this.headers = undefined;
  }
}

/** Adds `headers` (the routing headers of the node that failed) to an error on its way to the client. */
export function withHeaders<E extends RouterError>(error: E, headers: Readonly<Record<string, string>>): E {
  error.headers = error.headers === undefined ? headers : { ...headers, ...error.headers };
  return error;
}

/** 400: the request is malformed; `param` names the field. */
export class BadRequestError extends RouterError {
  constructor(message: string, param?: string, options: Omit<RouterErrorOptions, 'param'> = {}) {
    super(400, message, {
      code: 'invalid_request',
      ...options,
      retryable: false,
      ...(param === undefined ? {} : { param }),
    });
  }
}

/** 429: the client sends more than it may have in flight; a retry after `retryAfterSeconds` can succeed. */
export class TooManyRequestsError extends RouterError {
  constructor(message: string, retryAfterSeconds: number, code = 'rate_limited') {
    super(429, message, { code, retryable: true, retryAfterSeconds });
  }
}

/** 401: an API key is required and none (or a wrong one) was sent. */
export class UnauthorizedError extends RouterError {
  constructor(message = 'a valid API key is required') {
    super(401, message, { code: 'invalid_api_key', retryable: false });
  }
}

/**
 * 403: the key is valid but may not do this (a client key asking to change the fleet, issue 46): not 401,
 * which would tell the client to fetch another key of the same kind, or a page to ask for its key again.
 */
export class ForbiddenError extends RouterError {
  constructor(message: string, code = 'operator_key_required') {
    super(403, message, { code, retryable: false });
  }
}

/** 404: no route, model or node by that name. */
export class NotFoundError extends RouterError {
  constructor(message: string, code = 'not_found') {
    super(404, message, { code, retryable: false });
  }
}

/** 405: the path exists but not for this method. */
export class MethodNotAllowedError extends RouterError {
  constructor(message: string) {
    super(405, message, { code: 'method_not_allowed', retryable: false });
  }
}

/** 409: the thing is already in progress (a model pull). */
export class ConflictError extends RouterError {
  constructor(message: string) {
    super(409, message, { code: 'conflict', retryable: false });
  }
}

/** 413: the body is over the Lambda payload limit, or the prompt is over the context cap. */
export class PayloadTooLargeError extends RouterError {
  constructor(message: string) {
    super(413, message, { code: 'request_too_large', retryable: false });
  }
}

/** 502: a node answered with something the router cannot use. */
export class UpstreamError extends RouterError {
  readonly upstreamStatus: number | undefined;
  constructor(message: string, upstreamStatus?: number, options: RouterErrorOptions = {}) {
    super(502, message, { code: 'upstream_error', ...options });
    this.upstreamStatus = upstreamStatus;
  }
}

/**
 * 503: nodes exist but none can take the request now. A retryable one says when to come back (Retry-After,
 * 1 s unless told); one that retrying cannot fix says so (`x-should-retry: false`) and names no time.
 */
export class ServiceUnavailableError extends RouterError {
  constructor(message: string, options: RouterErrorOptions = {}) {
    const { retryAfterSeconds, ...rest } = options;
    const retryable = options.retryable ?? true;
    super(503, message, {
      code: 'unavailable',
      ...rest,
      retryable,
      ...(retryable ? { retryAfterSeconds: retryAfterSeconds ?? 1 } : {}),
    });
  }
}

/**
 * 503: the table that keeps the fleet's state (DynamoDB, or the emulator's stand-in) did not answer within
 * its deadline, could not be reached, or throttled the call. Not the router's own fault and not the
 * request's: a retry may well succeed, so it says when to come back.
 */
export class StoreUnavailableError extends ServiceUnavailableError {
  constructor(cause: unknown) {
    super('the fleet state table did not answer in time; retry shortly', { code: 'store_unavailable', cause });
  }
}

/** Turns anything thrown into a `RouterError`; unknown errors become a 500 that hides the internal text. */
export function toRouterError(error: unknown): RouterError {
  if (error instanceof RouterError) return error;
  return new RouterError(500, 'internal error', { code: 'internal_error', cause: error });
}
