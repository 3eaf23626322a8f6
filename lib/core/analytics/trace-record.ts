/**
 * What the router records about one client request (issue: traces and usage; issue 22): where it went,
 * how it went, what it cost. The recorder (lib/services/analytics/trace) writes these in pages and sums
 * them into the rollups (./rollup); the operator API shows them (./trace-view). Types, and which styles
 * are changes to the fleet rather than requests to a model.
 */

export type TraceStatus = 'completed' | 'failed' | 'retried' | 'client_disconnected' | 'incomplete';

/**
 * Which API the client spoke; for a change to the fleet (issue 46), which change: a pull, a delete (either
 * style), a copy, a settings write, a benchmark's start or cancel.
 */
export type RequestStyle =
  | 'ollama-chat'
  | 'ollama-generate'
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic-messages'
  | 'embeddings'
  | 'rerank'
  | 'image'
  | 'transcription'
  | 'pull'
  | 'delete'
  | 'copy'
  | 'settings'
  | 'benchmark-start'
  | 'benchmark-cancel';

/** The changes to the fleet: traced, never summed into the rollups (no request to a model). */
export type ChangeStyle = 'pull' | 'delete' | 'copy' | 'settings' | 'benchmark-start' | 'benchmark-cancel';

export const CHANGE_STYLES: ReadonlySet<RequestStyle> = new Set<ChangeStyle>([
  'pull',
  'delete',
  'copy',
  'settings',
  'benchmark-start',
  'benchmark-cancel',
]);

/** Whether a trace of `style` records a change to the fleet rather than a request to a model. */
export function isChangeStyle(style: RequestStyle): style is ChangeStyle {
  return CHANGE_STYLES.has(style);
}

export interface Trace {
  readonly requestId: string;
  /** Epoch ms the request arrived. */
  readonly startedAt: number;
  readonly style: RequestStyle;
  readonly status: TraceStatus;
  readonly requestedModel: string;
  readonly servedModel?: string;
  readonly nodeId?: string;
  readonly score?: number;
  /** Points per routing signal (the reference's `scores_breakdown`; lib/core/scoring/score `breakdownPoints`). */
  readonly scoreBreakdown?: Readonly<Record<string, number>>;
  /** From arrival to the end of the request; for a `retried` attempt, to when that attempt failed. */
  readonly latencyMs: number;
  /**
   * From arrival to the first token: a streamed answer's first node line; a one-object answer, which
   * arrives whole, its send time plus the node's own load, prompt and one-token durations (absent when
   * the node does not report them).
   */
  readonly timeToFirstTokenMs?: number;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly retries: number;
  readonly fallbackModel?: string;
  /** Nodes routing passed over because they were ejected for failing, each with why and for how long. */
  readonly skipped?: readonly string[];
  /** Context protection for a chat: `fits`, `num_ctx=32768 (loaded 4096)`, … (lib/core/context/plan-context). */
  readonly context?: string;
  readonly tags: readonly string[];
  readonly clientIp: string;
  readonly finishReason?: string;
  readonly error?: string;
  /** The failure's code (`RouterError.code`: `node_unreachable`, `queue_full`, …), where the router knew it. */
  readonly errorCode?: string;
  /** How long the node spent loading the model for this request, ms, where it says (Ollama `load_duration`). */
  readonly loadMs?: number;
  /** Prompt tokens the node served from its cache, where its protocol reports them (Ollama's does not). */
  readonly cachedTokens?: number;
  /**
   * The node's own prompt and answer times, ms (Ollama `prompt_eval_duration`, `eval_duration`): over
   * `promptTokens` and `completionTokens`, the node's prefill and decode rates as it measured them.
   */
  readonly promptEvalMs?: number;
  readonly evalMs?: number;
  /**
   * The router's estimate of the whole prompt it sent, tokens (lib/core/scoring/routing-request
   * `promptTokens`). Ollama's `promptTokens` counts only what the node evaluated, not a prefix it reused
   * from its cache: against this estimate, the rollups see how much of the prompts the caches served.
   */
  readonly promptEstimateTokens?: number;
  /**
   * How long the request waited for the table's fleet read before it was routed, ms: a cold start's
   * first read, or the one read a process thawed after a quiet spell (a Lambda container) may wait for
   * (ARCHITECTURE.md §3.5). Absent when it waited for nothing: every request of a process that runs.
   */
  readonly tableWaitMs?: number;
  /** How long the request waited in node:model queues for a slot, ms, over its attempts; absent when it did not. */
  readonly queueWaitMs?: number;
  /** Its priority (issue 43): stated, its application's default, or `normal`. Absent: the router's own work. */
  readonly priority?: 'high' | 'normal' | 'low';
  /** Its application for fair sharing: `key:<id>`, `tag:<tag>` or `client:<address>` (lib/core/queue/application). */
  readonly app?: string;
  /**
   * The id of the client or operator key that sent it (issue 46): the key's name, else a short digest —
   * never the key. Absent when the router checks no keys. On a router with keys, `app` is `key:<this>`.
   */
  readonly key?: string;
  /** Set on the requests of a benchmark run: the trace is kept, but adds nothing to any rollup. */
  readonly benchmarkRunId?: string;
}
