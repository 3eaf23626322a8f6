/**
 * What went wrong while dispatching one request, and the error the client gets when nothing worked
 * (issue: routing item 3; ARCHITECTURE.md §9.6 "a 503 that retrying cannot fix carries x-should-retry: false").
 * 404 when none of the models tried exists on any node, offline ones included, naming each model.
 * 400 when the prompt is far longer than the context of every model tried (../context/context-length-error).
 * 400 when every node holding a model tried refused the request itself (it carries images and the model
 * has no vision, tools the model cannot use, or asks a chat of an embedder). Otherwise 503 with Retry-After, `retryable` (→ `x-should-retry`) true only when waiting can help:
 * a queue was full or timed out, a node was offline, draining, short of memory, or failed while the
 * router tried it (a transient failure: Retry-After 1 s, issue 19 item 7 — the headers agree). It is
 * false, with `x-should-retry: false` and no Retry-After, when every node refused the request for good
 * (wrong kind of model, no vision, no tools). The message names each node and says in words what
 * failed; the technical causes (URLs, codes) are the error's `detail`, for the log and trace only.
 */
import { contextLengthError } from '../../core/context/context-length-error';
import { BadRequestError, NotFoundError, type RouterError, ServiceUnavailableError } from '../../core/errors';
import type { FleetSnapshot } from '../../core/fleet/node';
import { describeElimination, isPermanentElimination } from '../../core/scoring/eliminate';
import { modelOnAnyNode } from '../../core/scoring/model-presence';
import type { Elimination } from '../../core/scoring/placement-table';

export type FailureKind =
  | 'eliminated'
  | 'queue-full'
  | 'queue-timeout'
  /** Waited in the queue of a node that was ejected meanwhile, and moved on (./outlier-ejection). */
  | 'ejected'
  | 'unreachable'
  | 'server-error';

export interface AttemptFailure {
  readonly nodeId: string;
  readonly model: string;
  readonly kind: FailureKind;
  /** What failed, in words a client may read ("refused the connection", "failed (HTTP 500)"). */
  readonly detail: string;
  /** The technical cause (the node's URL, undici's code), for the operator's trace and log only. */
  readonly cause?: string;
  /** Waiting and asking again could succeed. */
  readonly clientRetryHelps: boolean;
  /** The model cannot do what the request asks (wrong kind, no vision, no tools): the request is at fault. */
  readonly requestMismatch?: boolean;
  readonly retryAfterSeconds?: number | undefined;
  /** When the attempt failed (the dispatcher's clock, epoch ms), for an attempt that reached for a node. */
  readonly failedAt?: number;
  /** Eliminated as `context-too-long`: the prompt estimate and the model's maximum context. */
  readonly tooLong?: { readonly promptTokens: number; readonly maxContext: number };
}

/** Eliminations that say the request asks what the model cannot do, whatever the node. */
const REQUEST_MISMATCH: ReadonlySet<string> = new Set(['wrong-kind', 'no-vision', 'no-tools', 'context-too-long']);

/** How many failures the 503 message lists before "and N more". */
const LISTED = 5;

function quoted(models: readonly string[]): string {
  return models.map((model) => `'${model}'`).join(', ');
}

/** The 503 when every node tried failed (connection errors, time-outs, 5xx): nothing refused, nothing was busy. */
export class NodesFailedError extends ServiceUnavailableError {}

const NODE_FAILURES: ReadonlySet<FailureKind> = new Set(['unreachable', 'server-error']);

export class DispatchLog {
  readonly failures: AttemptFailure[] = [];
  /** Attempts that reached a node (or tried to) and failed: what `maxRetries` bounds. */
  sendFailures = 0;
  private readonly unreachable = new Set<string>();

  /** Nodes passed over because they were ejected, in words, for the trace of the request. */
  readonly skipped: string[] = [];

  eliminated(model: string, eliminations: readonly Elimination[]): void {
    for (const { nodeId, reason, detail, retryAfterSeconds, tooLong } of eliminations) {
      const words = detail ?? describeElimination(reason);
      this.failures.push({
        nodeId,
        model,
        kind: 'eliminated',
        detail: words,
        clientRetryHelps: !isPermanentElimination(reason),
        requestMismatch: REQUEST_MISMATCH.has(reason),
        ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
        ...(tooLong !== undefined ? { tooLong } : {}),
      });
      if (reason === 'ejected') this.skipped.push(`${nodeId}: ${words}`);
    }
  }

  failed(failure: AttemptFailure): void {
    this.failures.push(failure);
    if (failure.kind === 'ejected') this.skipped.push(`${failure.nodeId}: ${failure.detail}`);
    if (failure.kind === 'unreachable' || failure.kind === 'server-error') this.sendFailures += 1;
    if (failure.kind === 'unreachable') this.unreachable.add(failure.nodeId);
  }

  /** A node that could not be reached is not tried again for a fallback model. */
  isUnreachable(nodeId: string): boolean {
    return this.unreachable.has(nodeId);
  }

  /** Every node of every model tried was too small for the prompt: the family's context error. */
  private contextTooLong(tried: readonly string[]): RouterError | undefined {
    let promptTokens = 0;
    let maxContext = 0;
    for (const failure of this.failures) {
      if (failure.tooLong === undefined) return undefined;
      promptTokens = failure.tooLong.promptTokens;
      maxContext = Math.max(maxContext, failure.tooLong.maxContext);
    }
    return contextLengthError(promptTokens, maxContext, tried);
  }

  toError(snapshot: FleetSnapshot, tried: readonly string[]): RouterError {
    const list = tried.length > 1 ? ` (tried: ${tried.join(', ')})` : '';
    const known = tried.filter((model) => modelOnAnyNode(snapshot, model));
    if (this.failures.length === 0 && known.length === 0) {
      return new NotFoundError(`model ${quoted(tried)} not found on any node${list}`, 'model_not_found');
    }
    if (this.failures.length === 0) {
      return new ServiceUnavailableError(`model ${quoted(known)} is only on nodes that are offline${list}`, {
        code: 'no_node_available',
        retryable: true,
      });
    }
    const shown = this.failures.slice(0, LISTED).map((failure) => `${failure.nodeId}: ${failure.detail}`);
    if (this.failures.length > LISTED) shown.push(`and ${this.failures.length - LISTED} more`);
    const tooLong = this.contextTooLong(tried);
    if (tooLong !== undefined) return tooLong;
    if (this.failures.every((failure) => failure.requestMismatch === true)) {
      // Like Ollama's 400 "does not support vision": no node or retry can serve this request as asked.
      return new BadRequestError(
        `model ${quoted(tried)} cannot serve this request${list}: ${shown.join('; ')}`,
        'model',
      );
    }
    const waits = this.failures.flatMap((failure) =>
      failure.retryAfterSeconds === undefined ? [] : [failure.retryAfterSeconds],
    );
    const causes = this.failures.flatMap((failure) =>
      failure.cause === undefined ? [] : [`${failure.nodeId}: ${failure.cause}`],
    );
    const allFailed = this.failures.every((failure) => NODE_FAILURES.has(failure.kind));
    const Unavailable = allFailed ? NodesFailedError : ServiceUnavailableError;
    return new Unavailable(`no node can take model ${quoted(tried)} now${list}: ${shown.join('; ')}`, {
      code: 'no_node_available',
      ...(causes.length > 0 ? { detail: causes.join('; ') } : {}),
      retryable: this.failures.some((failure) => failure.clientRetryHelps),
      ...(waits.length > 0 ? { retryAfterSeconds: Math.min(...waits) } : {}),
    });
  }
}
