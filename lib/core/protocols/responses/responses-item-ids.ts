/**
 * The ids of a response's output items and calls, derived from the response id (`resp_…`, made by the
 * caller) so the same reply gets the same ids streamed or not, and on every replay (protocols §4.2):
 * `rs_`, `msg_`, `fc_` or `ctc_`, the response id's suffix, and the item's `output_index`. Unique
 * within a response because indices are; unique across responses because response ids are. Pure.
 */
import type { OllamaChatChunkToolCall } from '../../wire/ollama';

export type OutputItemPrefix = 'rs' | 'msg' | 'fc' | 'ctc' | 'lsh';

/** `resp_abc` → `abc`. */
function suffixOf(responseId: string): string {
  return responseId.replace(/^resp_/, '');
}

/** `msg`, `resp_abc`, 1 → `msg_abc_1`. */
export function outputItemId(prefix: OutputItemPrefix, responseId: string, outputIndex: number): string {
  return `${prefix}_${suffixOf(responseId)}_${outputIndex}`;
}

/**
 * A call's `call_id`: the node's own id, which the client sends back with the result, else one derived
 * from the response id and the call's position among the reply's calls (`call_abc_0`).
 */
export function responsesCallId(call: OllamaChatChunkToolCall, responseId: string, callIndex: number): string {
  const id = call.id ?? '';
  return id === '' ? `call_${suffixOf(responseId)}_${callIndex}` : id;
}
