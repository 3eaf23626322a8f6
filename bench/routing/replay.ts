/**
 * The routing bench's open-loop replay (issue 41 item 3): every planned request is sent at its arrival
 * time — trace seconds divided by the time scale — whether or not earlier ones have finished, as
 * independent users would send them, and streamed to the end. Times are measured from the moment a
 * request left (the replay's own lateness in sending is recorded apart, so a busy client does not count
 * against the router).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { type ChatStatus, streamChat } from './chat-stream';
import { ConversationBook, type TurnKind } from './conversations';
import { promptTokens } from './prompt';
import type { PlannedRequest } from './workload';

export interface RequestRecord {
  readonly index: number;
  readonly model: string;
  readonly conversation: number;
  readonly turn: number;
  readonly kind: TurnKind;
  /** The prompt as sent, tokens as the node counts them. */
  readonly promptTokens: number;
  readonly askedTokens: number;
  /** When it was due, wall ms after the replay's start. */
  readonly dueMs: number;
  /** How late the replay sent it, wall ms. */
  readonly lateMs: number;
  /** Send → first content token, wall ms; undefined when none came. */
  readonly ttftMs: number | undefined;
  /** Send → end of the stream, wall ms. */
  readonly e2eMs: number;
  readonly status: ChatStatus;
  readonly httpStatus: number | undefined;
  readonly node: string | undefined;
  readonly outputTokens: number;
  /** `usage.prompt_tokens` and its `cached_tokens`, as the router reported them. */
  readonly usagePromptTokens: number | undefined;
  readonly cachedTokens: number | undefined;
  readonly error: string | undefined;
  /** The application it was sent as (the sharing scenario); absent otherwise. */
  readonly app?: string;
}

export interface ReplayResult {
  readonly records: readonly RequestRecord[];
  /** First due time to the last stream's end, wall ms. */
  readonly wallMs: number;
  readonly turns: Readonly<Record<TurnKind, number>>;
}

export interface ReplayOptions {
  /** Trace seconds per wall second. */
  readonly timeScale: number;
  readonly seed: number;
}

/** Replays `plan` against the router at `baseUrl`; resolves when every stream has ended. */
export async function replay(baseUrl: string, plan: readonly PlannedRequest[], options: ReplayOptions) {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: 10_000 } });
  const book = new ConversationBook(options.seed);
  const start = performance.now();
  const send = async (planned: PlannedRequest, dueMs: number): Promise<RequestRecord> => {
    const { messages, kind } = book.messagesFor(planned);
    const sentAt = performance.now();
    const headers: Record<string, string> = {};
    if (planned.app !== undefined) headers['x-service-tags'] = planned.app;
    if (planned.priority !== undefined) headers['x-fleet-priority'] = planned.priority;
    const outcome = await streamChat(dispatcher, baseUrl, {
      model: planned.model,
      messages,
      maxTokens: planned.outputTokens,
      headers,
    });
    if (outcome.status === 'ok') book.answered(planned, messages, outcome.answer);
    return {
      index: planned.index,
      model: planned.model,
      conversation: planned.conversation,
      turn: planned.turn,
      kind,
      promptTokens: promptTokens(messages),
      askedTokens: planned.outputTokens,
      dueMs,
      lateMs: sentAt - start - dueMs,
      ttftMs: outcome.firstTokenAt === undefined ? undefined : outcome.firstTokenAt - sentAt,
      e2eMs: outcome.endAt - sentAt,
      status: outcome.status,
      httpStatus: outcome.httpStatus,
      node: outcome.node,
      outputTokens: outcome.outputTokens,
      usagePromptTokens: outcome.promptTokens,
      cachedTokens: outcome.cachedTokens,
      error: outcome.error,
      ...(planned.app === undefined ? {} : { app: planned.app }),
    };
  };
  const pending: Promise<RequestRecord>[] = [];
  try {
    for (const planned of plan) {
      const dueMs = (planned.at * 1000) / options.timeScale;
      const wait = dueMs - (performance.now() - start);
      if (wait > 1) await sleep(wait);
      pending.push(send(planned, dueMs));
    }
    const records = await Promise.all(pending);
    return { records, wallMs: performance.now() - start, turns: { ...book.counts } } satisfies ReplayResult;
  } finally {
    await dispatcher.close();
  }
}
