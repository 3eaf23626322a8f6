/**
 * Context protection for one attempt on one node (issue 20 item 10; numbers in ./context-window): does the
 * model's context there hold the request, and if not, which `options.num_ctx` makes it hold it. A
 * `num_ctx` different from the loaded one makes Ollama reload the model, so nothing changes when the
 * loaded window fits (routing prefers such nodes: the `context_fit` signal), and a `num_ctx` the client
 * set itself is never touched. The plan says in words what was done: the `x-fleet-context` header and
 * the trace's `context`. Pure.
 */
import { contextNeed, contextSize, RUNTIME_DEFAULT_CONTEXT } from './context-window';

export interface ContextPlanInput {
  /** The router's prompt estimate, in tokens. */
  readonly promptTokens: number;
  /** The request's `options.num_predict`, as it goes to the node. */
  readonly numPredict?: number | null | undefined;
  /** The request's `options.num_ctx`, as the client set it. */
  readonly clientNumCtx?: number | null | undefined;
  /** The model is hot on the node. */
  readonly loaded: boolean;
  /** The context it is loaded with, when the node reports it. */
  readonly loadedContext?: number | undefined;
  /** The model's own maximum (`<arch>.context_length`), when known. */
  readonly modelMax?: number | undefined;
}

export interface ContextPlan {
  /** The `num_ctx` to set on the request; absent: the request goes as it is. */
  readonly numCtx?: number;
  /** The context the node will run the request with (known, or Ollama's default assumed). */
  readonly window: number;
  /** What was decided, in words: `fits`, `num_ctx=32768 (loaded 4096)`, `client num_ctx=8192`, … */
  readonly description: string;
}

function capped(size: number, modelMax: number | undefined): number {
  return modelMax !== undefined && modelMax > 0 ? Math.min(size, modelMax) : size;
}

export function planContext(input: ContextPlanInput): ContextPlan {
  const { promptTokens, modelMax } = input;
  const client = input.clientNumCtx;
  if (client !== undefined && client !== null && client > 0) {
    // Ollama runs a larger num_ctx than the model's own maximum at that maximum.
    return { window: capped(client, modelMax), description: `client num_ctx=${client}` };
  }
  const need = contextNeed(promptTokens, input.numPredict);
  const target = capped(need, modelMax);
  const known = input.loaded ? input.loadedContext : undefined;
  if (known !== undefined) {
    if (known >= target) {
      return { window: known, description: known >= need ? 'fits' : `fits at the model's maximum ${known}` };
    }
    const numCtx = contextSize(need, modelMax);
    return { numCtx, window: numCtx, description: `num_ctx=${numCtx} (loaded ${known})` };
  }
  const state = input.loaded ? 'loaded context unknown' : 'not loaded';
  const assumed = capped(RUNTIME_DEFAULT_CONTEXT, modelMax);
  if (assumed >= target) return { window: assumed, description: `fits (${state})` };
  const numCtx = contextSize(need, modelMax);
  return { numCtx, window: numCtx, description: `num_ctx=${numCtx} (${state})` };
}
