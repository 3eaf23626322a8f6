/**
 * What went wrong while dispatching one request, and the error the client gets when nothing worked
 * (issue: routing item 3; contract §4 "a 503 that retrying cannot fix carries x-should-retry: false").
 * 404 when none of the models tried exists on any node, offline ones included, naming each model.
 * 400 when the prompt is far longer than the context of every model tried (../context/context-length-error).
 * 400 when every node holding a model tried refused the request itself (it carries images and the model
 * has no vision, tools the model cannot use, or asks a chat of an embedder). Otherwise 503 with Retry-After, `retryable` (→ `x-should-retry`) true only when waiting can help:
 * a queue was full or timed out, or a node was offline, draining, short of memory. It is false when
 * every node refused the request for good (wrong kind of model, no vision, no tools) or failed while
 * the router tried it — the router has already retried on other nodes, and SDK retries on top (two
 * each, protocols §1.8) would only multiply the load on a fleet that is failing (anchor §9, retry storms).
 */
import { contextLengthError } from '../context/context-length-error';
import { BadRequestError, NotFoundError, type RouterError, ServiceUnavailableError } from '../errors';
import type { FleetSnapshot } from '../fleet/node';
import { describeElimination, isPermanentElimination } from './eliminate';
import { modelOnAnyNode } from './model-presence';
import type { Elimination } from './placement-table';

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
  readonly detail: string;
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
    return new ServiceUnavailableError(`no node can take model ${quoted(tried)} now${list}: ${shown.join('; ')}`, {
      code: 'no_node_available',
      retryable: this.failures.some((failure) => failure.clientRetryHelps),
      ...(waits.length > 0 ? { retryAfterSeconds: Math.min(...waits) } : {}),
    });
  }
}
