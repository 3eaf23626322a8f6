/**
 * The Responses response object (protocols §4.2) around a reply's status, output and usage: the
 * non-streaming body and the `response` of every lifecycle event. Besides what the reply gives, it
 * echoes the request the way OpenAI does — `instructions`, `max_output_tokens` (the client's, before any
 * thinking raise), `parallel_tool_calls` (default true), `previous_response_id`, `reasoning`,
 * `temperature` and `top_p` (`null` when not sent: the node's model used its own), `text` (default
 * `{format: {type: "text"}}`), `tool_choice` (default `auto`), the top-level `tools`, `truncation`
 * (default `disabled`) and `metadata` (default `{}`). `store` says whether the handler keeps the
 * response. Left out: `output_text` (openai-node computes it from `output`; it is not on the wire) and
 * fields OpenAI fills for its own services (`service_tier`, `prompt_cache_key`, `access_programs`, …).
 * Ids and clocks come in through the context, so the same reply always gives the same object. Pure.
 */
import type {
  ResponsesError,
  ResponsesOutputItem,
  ResponsesRequest,
  ResponsesResponse,
  ResponsesStatus,
  ResponsesUsage,
} from '../../wire/responses';
import { incompleteDetailsOf } from './map-responses-status';

export interface ResponsesContext {
  /** `resp_…`, made by the caller; item and call ids are derived from it. */
  readonly id: string;
  /** Unix seconds when the request came in: `created_at`. */
  readonly createdAt: number;
  /** Reads the clock (Unix seconds) when the reply finishes: `completed_at`. */
  readonly now: () => number;
  /** The model name to report (the one that served the request). */
  readonly model: string;
  /** The client's request, echoed in the object. */
  readonly request: ResponsesRequest;
  /** Whether the handler keeps the response for a later `previous_response_id`; false when absent. */
  readonly stored?: boolean;
}

export interface ResponsesOutcome {
  readonly status: ResponsesStatus;
  readonly output: readonly ResponsesOutputItem[];
  readonly usage: ResponsesUsage | null;
  readonly error?: ResponsesError;
  /** Unix seconds; `null` while in progress and on failure. */
  readonly completedAt: number | null;
}

export function responsesEnvelope(context: ResponsesContext, outcome: ResponsesOutcome): ResponsesResponse {
  const { request } = context;
  return {
    id: context.id,
    object: 'response',
    created_at: context.createdAt,
    status: outcome.status,
    completed_at: outcome.completedAt,
    error: outcome.error ?? null,
    incomplete_details: incompleteDetailsOf(outcome.status),
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: context.model,
    output: outcome.output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    reasoning: request.reasoning ?? null,
    store: context.stored === true,
    temperature: request.temperature ?? null,
    text: request.text ?? { format: { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? null,
    truncation: request.truncation ?? 'disabled',
    usage: outcome.usage,
    metadata: request.metadata ?? {},
  };
}

/** The object of `response.created` and `response.in_progress`: nothing produced yet. */
export function inProgressEnvelope(context: ResponsesContext): ResponsesResponse {
  return responsesEnvelope(context, { status: 'in_progress', output: [], usage: null, completedAt: null });
}
