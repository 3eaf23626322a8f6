/**
 * Layer 2's model call (anchor §3.8): one tool result summarised by a fleet model, through the normal
 * dispatcher — ranked, queued on the node like any request, retried and released — as a non-streaming
 * `/api/chat` at temperature 0. The model is `FLEET_CONTEXT_COMPACTION_MODEL`, else the largest chat
 * model the fleet has loaded (`bestChatModel`, tier `large`, as an unmapped `claude-sonnet` id resolves).
 * A thinking model is told not to think: the summary is all that is wanted. Any failure throws, for the
 * caller to fail open.
 */

import { SUMMARY_MAX_TOKENS } from '../../core/context/select-compaction-candidates';
import { summaryMessages } from '../../core/context/summarised-tool-result';
import type { FleetSnapshot } from '../../core/fleet/node';
import { thinkingCapable } from '../../core/fleet/thinking-capable';
import { bestChatModel } from '../../core/scoring/resolve-model';
import { parseJson } from '../../core/wire/json';
import { parseOllamaChatChunk } from '../../core/wire/ollama';
import { createDispatcher, type DispatcherOptions } from '../dispatch/dispatcher';
import type { SlotOutcome } from '../dispatch/queue-manager';
import { readNodeBody } from '../node-client/node-stream';
import { openChatStream } from '../node-client/open-chat-stream';
import type { Summarise } from './compact-tool-results';

export interface FleetSummariserOptions {
  readonly snapshot: () => FleetSnapshot | Promise<FleetSnapshot>;
  /** Everything the dispatcher takes but the snapshot and the transport. */
  readonly dispatch: Omit<DispatcherOptions, 'snapshot' | 'send'>;
  /** `FLEET_CONTEXT_COMPACTION_MODEL`; undefined = the largest loaded chat model. */
  readonly model: string | undefined;
  /** `FLEET_FIRST_BYTE_TIMEOUT_MS`. */
  readonly firstByteTimeoutMs: number;
}

/** Room over the summary's cut for a model that runs a little long (the text is cut to size anyway). */
const OUTPUT_TOKENS = SUMMARY_MAX_TOKENS + 112;

export function createFleetSummariser(options: FleetSummariserOptions): Summarise {
  return async (content, signal) => {
    const snapshot = await options.snapshot();
    const model = options.model ?? bestChatModel(snapshot, 'large', { needsVision: false, needsTools: false });
    if (model === undefined) throw new Error('no chat model on the fleet to summarise with');
    const thinking = thinkingCapable(snapshot, model) ? { think: false } : {};
    const body = (served: string) => ({
      model: served,
      messages: summaryMessages(content),
      stream: false,
      options: { temperature: 0, num_predict: OUTPUT_TOKENS },
      ...thinking,
    });
    const dispatch = createDispatcher({
      ...options.dispatch,
      snapshot: () => snapshot,
      send: (attempt, attemptSignal) =>
        openChatStream(attempt.node.url, '/api/chat', body(attempt.model), attemptSignal, options.firstByteTimeoutMs),
    });
    const { reply, slot } = await dispatch({ model, fallbackModels: [], kind: 'chat', needsVision: false }, signal);
    let outcome: SlotOutcome = 'failed';
    try {
      const text = (await readNodeBody(reply)).toString('utf8');
      if (reply.status >= 400) throw new Error(`${model} answered ${reply.status}: ${text.slice(0, 200)}`);
      const json = parseJson(text);
      const chunk = json.ok ? parseOllamaChatChunk(json.value) : undefined;
      if (chunk === undefined || !chunk.ok) throw new Error(`${model} answered something other than a chat reply`);
      outcome = 'completed';
      return chunk.value.message?.content ?? '';
    } finally {
      reply.cancel();
      slot.release(signal.aborted ? 'cancelled' : outcome);
    }
  };
}
