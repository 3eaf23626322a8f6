/**
 * What the router routes by (issue: routing items 1, 3, 5): the requested model and its fallbacks, the
 * kind of work, the capabilities the request needs, a prompt-size estimate and the conversation key.
 * Family-neutral: each family's handler builds one from its own body (OpenAI, Anthropic, Ollama) and
 * nothing here knows about wire shapes. Pure types and one mapping.
 */
import { contextNeed } from '../context/context-window';
import type { ModelKind } from '../fleet/node';
import type { WaitClaim } from '../queue/wait-line';

/** The kind of work, which decides the kind of model that may serve it. */
export type RoutingKind = 'chat' | 'embedding' | 'rerank' | 'image' | 'transcription';

export interface RoutingRequest {
  /** The model as the client named it (`llama3`, `llama3:latest`, `qwen3:32b`). */
  readonly model: string;
  /** `fallback_models`, tried in order when `model` is unavailable. */
  readonly fallbackModels: readonly string[];
  readonly kind: RoutingKind;
  /** The request carries images: only models with the `vision` capability may serve it. */
  readonly needsVision: boolean;
  /** The request declares tools: models a node described without `tools` are eliminated. */
  readonly needsTools?: boolean;
  /** Estimated prompt tokens (text, tools and images), for context protection; absent when not estimated. */
  readonly promptTokens?: number;
  /** The request's output budget (`options.num_predict`), part of the context it needs (../context/context-window). */
  readonly answerTokens?: number;
  /** See `conversationKey` in ./affinity; absent where affinity does not apply (embeddings, rerank…). */
  readonly conversationKey?: string;
  /**
   * The request carries an earlier answer of the model (an assistant turn): its conversation may be pinned
   * by another instance, worth a short wait for the table (lib/services/dispatch/affinity `recall`).
   */
  readonly continuesConversation?: boolean;
  /**
   * Estimated prompt tokens up to and including the conversation's last answer: what the node that served
   * the previous turn held in its prompt cache when it finished (issue 41). Absent for a first turn.
   */
  readonly prefixTokens?: number;
  /**
   * Where the request stands in a queue's line when it has to wait: its priority and application (issue 43,
   * lib/services/http/request-claim); the router's own work (`normal`, application `router`) when absent.
   */
  readonly claim?: WaitClaim;
}

const MODEL_KIND: Readonly<Record<RoutingKind, ModelKind>> = {
  chat: 'llm',
  embedding: 'embedding',
  rerank: 'rerank',
  image: 'image',
  transcription: 'transcription',
};

/** The kind of model that may serve this kind of work. */
export function modelKindFor(kind: RoutingKind): ModelKind {
  return MODEL_KIND[kind];
}

/** Tokens the model's context must hold: the prompt estimate and the answer reserve; undefined when not estimated. */
export function contextNeedOf(request: Pick<RoutingRequest, 'promptTokens' | 'answerTokens'>): number | undefined {
  const prompt = request.promptTokens;
  return prompt === undefined || prompt <= 0 ? undefined : contextNeed(prompt, request.answerTokens);
}
