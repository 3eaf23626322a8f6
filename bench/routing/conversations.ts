/**
 * The routing bench's conversations while a replay runs (issue 41 item 3). A continuation needs its
 * previous answer's text, which exists only once that answer has streamed, and the replay keeps the trace's
 * arrivals exact rather than waiting for it. So a request extends its conversation as of the latest turn
 * whose answer has arrived in full: the turn before it as planned (`continued`), an earlier one when the
 * previous is still streaming or failed (`branched`, as a person editing an earlier message), or nothing
 * when no turn is complete yet (`fresh`: it opens the conversation anew). The plan's minimum gap between
 * turns makes the last two rare; the report counts them per run.
 */
import { type ChatMessage, turnMessages } from './prompt';
import type { PlannedRequest } from './workload';

export type TurnKind = 'new' | 'continued' | 'branched' | 'fresh';

interface Complete {
  readonly turn: number;
  readonly messages: readonly ChatMessage[];
}

export class ConversationBook {
  private readonly complete = new Map<number, Complete>();
  readonly counts: Record<TurnKind, number> = { new: 0, continued: 0, branched: 0, fresh: 0 };

  constructor(private readonly seed: number) {}

  /** The messages to send for `request` now, and how they relate to the plan. */
  messagesFor(request: PlannedRequest): { messages: ChatMessage[]; kind: TurnKind } {
    const done = this.complete.get(request.conversation);
    const kind: TurnKind =
      request.turn === 1
        ? 'new'
        : done === undefined
          ? 'fresh'
          : done.turn === request.turn - 1
            ? 'continued'
            : 'branched';
    this.counts[kind] += 1;
    return { messages: turnMessages(done?.messages ?? [], request, this.seed), kind };
  }

  /** Records a complete answer: later turns extend it, unless a later turn of it completed already. */
  answered(request: PlannedRequest, messages: readonly ChatMessage[], answer: string): void {
    const done = this.complete.get(request.conversation);
    if (done !== undefined && done.turn >= request.turn) return;
    this.complete.set(request.conversation, {
      turn: request.turn,
      messages: [...messages, { role: 'assistant', content: answer }],
    });
  }
}
