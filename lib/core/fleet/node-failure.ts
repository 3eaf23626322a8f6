/**
 * What the client is told when a node could not be used (issue 19 item 7): the failure in words — "refused
 * the connection", "did not answer within 5 s", "failed (HTTP 500)" — said of the node by its id by the
 * caller. The technical cause (the node's URL, undici's code and message, the node's raw output) goes to
 * the error's `detail`, for the operator's log and trace, never into the client's text. Pure.
 */
import { UpstreamError } from '../errors';

/** A node call that failed before any reply: `failure` is the verb phrase, `detail` the technical cause. */
export class NodeUnreachableError extends UpstreamError {
  readonly failure: string;
  constructor(failure: string, detail: string, cause: unknown) {
    super(`the node ${failure}`, undefined, { code: 'node_unreachable', detail, cause });
    this.failure = failure;
  }
}

interface ErrorLike {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly cause?: unknown;
}

/** Errors by shape, not `instanceof`: socket errors can come from another realm (a VM context, a test runner). */
function errorLike(value: unknown): ErrorLike | undefined {
  return typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;
}

/** The first string `code` along an error's cause chain (undici wraps the socket's errors). */
function errorCode(error: unknown): string | undefined {
  let current = errorLike(error);
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = errorLike(current.cause);
  }
  return undefined;
}

function nameOf(error: unknown): unknown {
  return errorLike(error)?.name;
}

function isTimeout(error: unknown, code: string | undefined): boolean {
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT') return true;
  return nameOf(error) === 'TimeoutError' || nameOf(error) === 'HeadersTimeoutError';
}

/** `5 s`, `0.3 s`, `5 min`. */
export function formatWait(ms: number): string {
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * The verb phrase for a failed node call, from the error's code: what a client may read. `timeoutMs` is
 * the wait the caller gave the node, said when the node ran out of it.
 */
export function nodeFailureWords(error: unknown, timeoutMs?: number): string {
  if (error instanceof NodeUnreachableError) return error.failure;
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return 'refused the connection';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'did not accept the connection in time';
  if (isTimeout(error, code))
    return timeoutMs === undefined ? 'did not answer in time' : `did not answer within ${formatWait(timeoutMs)}`;
  if (code === 'UND_ERR_BODY_TIMEOUT') return 'stopped sending its reply';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED')
    return 'closed the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'has an address that does not resolve';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN') return 'could not be reached';
  if (code === 'UND_ERR_ABORTED' || nameOf(error) === 'AbortError') return 'was abandoned';
  return 'could not be reached';
}

/**
 * A failed node call in words a client may read, whatever threw it: the node's failure said without "the
 * node" ("closed the connection", "failed (HTTP 500)"), or, for a reply the caller could not use, that.
 * An `UpstreamError`'s message is written for the client; anything else may hold a URL or a code.
 */
export function nodeCallWords(error: unknown, timeoutMs?: number): string {
  if (error instanceof NodeUnreachableError) return error.failure;
  if (error instanceof UpstreamError) {
    if (error.message.startsWith("the node's ")) return `its ${error.message.slice("the node's ".length)}`;
    if (error.message.startsWith('the node ')) return error.message.slice('the node '.length);
    return error.message;
  }
  if (errorCode(error) !== undefined) return nodeFailureWords(error, timeoutMs);
  return 'sent a reply the router could not read';
}

/** `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:11434`: the operator's words for the same failure. */
export function technicalCause(error: unknown): string {
  if (error instanceof UpstreamError && error.detail !== undefined) return error.detail;
  const message = errorLike(error)?.message;
  if (typeof message !== 'string') return String(error);
  const code = errorCode(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}

/** The error a node call ends in when no reply came: words for the client, `where` and the code for the log. */
export function nodeUnreachable(error: unknown, where: string, timeoutMs?: number): NodeUnreachableError {
  return new NodeUnreachableError(nodeFailureWords(error, timeoutMs), `${where}: ${technicalCause(error)}`, error);
}

/** A node's 5xx (or other reply it could not stand behind): the status in words, its body for the log only. */
export function nodeFailedStatus(status: number, where: string, body: string): UpstreamError {
  return new UpstreamError(`the node failed (HTTP ${status})`, status, {
    detail: `${where} answered ${status}: ${body.slice(0, 500)}`,
  });
}

/** The code of `nodeBrokeOff`'s error: how the exchange tells outlier ejection the node cut its reply. */
export const BROKE_OFF_CODE = 'node_broke_off';

/** A reply that broke off mid-body (connection reset, node crash): the node's failure, said of it by id. */
export function nodeBrokeOff(nodeId: string, error: unknown): UpstreamError {
  return new UpstreamError(`node ${nodeId} broke off its reply`, undefined, {
    code: BROKE_OFF_CODE,
    cause: error,
    detail: `the reply from node ${nodeId} broke off: ${technicalCause(error)}`,
  });
}

/** `the node refused the connection` said of `gpu1`: `node gpu1 refused the connection`. */
export function saidOfNode(nodeId: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith('the node ')
    ? `node ${nodeId} ${message.slice('the node '.length)}`
    : `node ${nodeId}: ${message}`;
}
