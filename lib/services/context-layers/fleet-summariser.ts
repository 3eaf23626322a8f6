/**
 * Layer 2's model call (anchor §3.8): one tool result summarised by a fleet model, through the routed
 * exchange every routed request takes (lib/services/dispatch/routed-exchange) — ranked, queued on the
 * node like any request, retried and released, and never traced (it is no client's request) — as a
 * non-streaming `/api/chat` at temperature 0. The model is `FLEET_CONTEXT_COMPACTION_MODEL`, else the largest chat
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
import { type ExchangeDeps, exchangeWhole } from '../dispatch/routed-exchange';
import { openChatStream } from '../node-client/open-chat-stream';
import type { Summarise } from './compact-tool-results';

export interface FleetSummariserOptions {
  readonly snapshot: () => FleetSnapshot | Promise<FleetSnapshot>;
  /** The instance's dispatcher (and trace recorder, which the summariser's own calls never write to). */
  readonly exchange: ExchangeDeps;
  /** `FLEET_CONTEXT_COMPACTION_MODEL`; undefined = the largest loaded chat model. */
  readonly model: string | undefined;
  /** `FLEET_FIRST_BYTE_TIMEOUT_MS`. */
  readonly firstByteTimeoutMs: number;
}

/** Room over the summary's cut for a model that runs a little long (the text is cut to size anyway). */
const OUTPUT_TOKENS = SUMMARY_MAX_TOKENS + 112;

/** The most of a summary reply read. */
const MAX_REPLY_BYTES = 8 * 1024 * 1024;

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
    const routed = await exchangeWhole(
      options.exchange,
      {
        routing: { model, fallbackModels: [], kind: 'chat', needsVision: false },
        send: (attempt, attemptSignal) =>
          openChatStream(attempt.node.url, '/api/chat', body(attempt.model), attemptSignal, options.firstByteTimeoutMs),
        signal,
      },
      (answer) => {
        const text = answer.body.toString('utf8');
        if (answer.status >= 400) throw new Error(`${model} answered ${answer.status}: ${text.slice(0, 200)}`);
        const json = parseJson(text);
        const chunk = json.ok ? parseOllamaChatChunk(json.value) : undefined;
        if (chunk === undefined || !chunk.ok) throw new Error(`${model} answered something other than a chat reply`);
        return { value: chunk.value.message?.content ?? '' };
      },
      MAX_REPLY_BYTES,
    );
    return routed.value;
  };
}
