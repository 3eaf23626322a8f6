/**
 * What the trace does not say, assigned seeded (issue 41 item 3): which model each request asks for and
 * which conversation it belongs to. The plan is fixed before the replay starts, the same for every
 * strategy that replays it with the same seed.
 *
 * - Model: drawn from the scenario's model mix (weights over the fleet's models).
 * - Conversation: with probability `continueShare` a request continues an open conversation of its model
 *   whose previous turn arrived at least `minTurnGapSeconds` earlier (trace time: a person reads the
 *   answer before writing again) and whose previous prompt and answer are shorter than this request's
 *   prompt; one of those is drawn uniformly, or with `continuePick: "recent"` the one whose last turn came
 *   latest (an agent's loop). Otherwise, or when none qualifies, it starts a new one.
 * - Sizes: the trace's prompt and output tokens, except that a new conversation's first prompt may be capped
 *   (`firstTurnMaxTokens`: an opening turn is short, the history grows), and that a prompt is cut so that prompt and answer fit
 *   the context the nodes load models with (`contextTokens`, less a margin for the router's estimate);
 *   such requests are counted as clipped. An output of 0 tokens is asked as 1 (no prompt asks for none).
 */
import { pickWeighted, type Random, seededRandom } from './prng';
import type { TraceRequest } from './trace';

export interface WorkloadSpec {
  /** Model name → weight; the weights need not sum to 1. */
  readonly modelMix: Readonly<Record<string, number>>;
  /** Share of requests that continue an earlier conversation when one qualifies, 0–1. */
  readonly continueShare: number;
  /** Least trace time between a conversation's turns, seconds. */
  readonly minTurnGapSeconds: number;
  /**
   * Which qualifying conversation goes on: `uniform`, any of them (people coming back to chats at random);
   * `recent`, the one whose last turn came latest (an agent's loop: the conversation that just got its
   * answer sends the next turn); `closest`, the one whose history is longest yet still shorter than the
   * request's prompt (the trace's prompt size is the whole context, and a conversation's context grows by a
   * turn at a time). Default `uniform`.
   */
  readonly continuePick?: 'uniform' | 'recent' | 'closest' | undefined;
  /**
   * The longest first prompt of a new conversation, tokens (default: none): a chat's history is what grows
   * long, its opening turn is short. A trace prompt cut to it counts as clipped.
   */
  readonly firstTurnMaxTokens?: number | undefined;
  /** The context window models run with on the nodes, tokens. */
  readonly contextTokens: number;
}

export interface PlannedRequest {
  readonly index: number;
  /** Arrival, trace seconds from the window's start. */
  readonly at: number;
  readonly model: string;
  readonly conversation: number;
  /** 1 for a conversation's first request. */
  readonly turn: number;
  /** The prompt's length to build, tokens (⌈chars/4⌉ of all messages). */
  readonly promptTokens: number;
  /** The answer's length to ask for, tokens. */
  readonly outputTokens: number;
  /** The trace's prompt did not fit the context and was cut. */
  readonly clipped: boolean;
  /** The application it is sent as (`X-Service-Tags`: its first tag), for the sharing scenario (./sharing). */
  readonly app?: string;
  /** Its `X-Fleet-Priority`, for the sharing scenario; unsaid when absent. */
  readonly priority?: 'high' | 'normal' | 'low';
}

/** Tokens kept free for the router's prompt estimate (role names, separators) beyond the prompt's own. */
export const CONTEXT_MARGIN_TOKENS = 64;
/** The fewest tokens a continuation adds to its conversation (the new question). */
export const MIN_NEW_TURN_TOKENS = 32;
/** Prompt tokens (chars/4) an answer of one word adds: the simulated words average ~6 characters. */
export const ANSWER_PROMPT_TOKENS_PER_WORD = 1.75;

interface OpenConversation {
  readonly id: number;
  turns: number;
  lastAt: number;
  /** Estimated prompt tokens of its last prompt and answer. */
  length: number;
}

function pickContinuation(
  random: Random,
  open: readonly OpenConversation[],
  at: number,
  promptTokens: number,
  spec: WorkloadSpec,
): OpenConversation | undefined {
  const eligible = open.filter(
    (conversation) =>
      conversation.lastAt + spec.minTurnGapSeconds <= at && conversation.length + MIN_NEW_TURN_TOKENS <= promptTokens,
  );
  if (eligible.length === 0) return undefined;
  // The draw is made either way, so both picks consume the same random numbers and plan the same models.
  const drawn = eligible[Math.floor(random() * eligible.length)];
  if (spec.continuePick === 'recent') {
    return eligible.reduce((latest, conversation) => (conversation.lastAt > latest.lastAt ? conversation : latest));
  }
  if (spec.continuePick === 'closest') {
    return eligible.reduce((longest, conversation) => (conversation.length > longest.length ? conversation : longest));
  }
  return drawn;
}

/** The seeded plan of a window: model, conversation and sizes of every request. */
export function planWorkload(trace: readonly TraceRequest[], spec: WorkloadSpec, seed: number): PlannedRequest[] {
  const models = Object.keys(spec.modelMix);
  const weights = models.map((model) => spec.modelMix[model] ?? 0);
  if (models.length === 0 || weights.some((weight) => !(weight >= 0))) {
    throw new Error('the model mix needs at least one model and weights of 0 or more');
  }
  const random = seededRandom(seed);
  const open = new Map<string, OpenConversation[]>(models.map((model) => [model, []]));
  let conversations = 0;
  return trace.map((request, index) => {
    const model = models[pickWeighted(random, weights)] ?? models[0] ?? '';
    const outputTokens = Math.max(1, request.outputTokens);
    const room = spec.contextTokens - outputTokens - CONTEXT_MARGIN_TOKENS;
    const promptTokens = Math.max(MIN_NEW_TURN_TOKENS, Math.min(request.promptTokens, room));
    const ofModel = open.get(model) ?? [];
    const continues = random() < spec.continueShare;
    const chosen = continues ? pickContinuation(random, ofModel, request.at, promptTokens, spec) : undefined;
    const conversation = chosen ?? { id: conversations + 1, turns: 0, lastAt: request.at, length: 0 };
    if (chosen === undefined) {
      conversations += 1;
      ofModel.push(conversation);
    }
    const cap = chosen === undefined ? spec.firstTurnMaxTokens : undefined;
    const asked = cap === undefined ? promptTokens : Math.max(MIN_NEW_TURN_TOKENS, Math.min(promptTokens, cap));
    conversation.turns += 1;
    conversation.lastAt = request.at;
    conversation.length = asked + Math.ceil(outputTokens * ANSWER_PROMPT_TOKENS_PER_WORD);
    open.set(model, ofModel);
    return {
      index,
      at: request.at,
      model,
      conversation: conversation.id,
      turn: conversation.turns,
      promptTokens: asked,
      outputTokens,
      clipped: asked < request.promptTokens,
    };
  });
}
