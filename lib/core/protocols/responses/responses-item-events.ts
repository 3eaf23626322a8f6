/**
 * The events each output item is streamed with (protocols §4.3), for `createResponsesStreamConverter`,
 * which decides when items open and close. Every item goes `response.output_item.added` …
 * `response.output_item.done`; in between:
 * - reasoning: one summary part (`reasoning_summary_part.added`), `reasoning_summary_text.delta`s, then
 *   `reasoning_summary_text.done` and `reasoning_summary_part.done` with the whole text;
 * - message: one `output_text` content part (`content_part.added`), `output_text.delta`s, then
 *   `output_text.done` and `content_part.done` with the whole text;
 * - function call (whole, as Ollama sends it): added with `arguments: ""`, one
 *   `function_call_arguments.delta` with all of them (none when empty), `function_call_arguments.done`;
 * - custom tool call: the same with `custom_tool_call_input.delta`/`.done` and `input`.
 * These are the shapes openai-node 7.55's stream accumulator checks (a summary part before its text, a
 * content part before its deltas). `next` hands out the stream's sequence numbers. Pure.
 */
import type {
  ResponsesCallItem,
  ResponsesItemStatus,
  ResponsesMessageItem,
  ResponsesOutputText,
  ResponsesReasoningItem,
  ResponsesSummaryText,
} from '../../wire/responses';
import type { ResponsesStreamEvent } from './responses-stream-event';

export type TextItemKind = 'reasoning' | 'message';
export type NextSequence = () => number;

/** Where an item sits: its id and its `output_index`. */
export interface ItemPlace {
  readonly id: string;
  readonly index: number;
}

const outputText = (text: string): ResponsesOutputText => ({
  type: 'output_text',
  text,
  annotations: [],
  logprobs: [],
});
const summaryText = (text: string): ResponsesSummaryText => ({ type: 'summary_text', text });

/** The finished item of a reasoning or message run; a message carries `status`. */
export function textItem(
  kind: TextItemKind,
  place: ItemPlace,
  text: string,
  status: ResponsesItemStatus,
): ResponsesReasoningItem | ResponsesMessageItem {
  switch (kind) {
    case 'reasoning':
      return { id: place.id, type: 'reasoning', summary: [summaryText(text)] };
    case 'message':
      return { id: place.id, type: 'message', status, role: 'assistant', content: [outputText(text)] };
  }
}

export function textItemAddedEvents(kind: TextItemKind, place: ItemPlace, next: NextSequence): ResponsesStreamEvent[] {
  const scope = { item_id: place.id, output_index: place.index };
  switch (kind) {
    case 'reasoning':
      return [
        {
          type: 'response.output_item.added',
          sequence_number: next(),
          output_index: place.index,
          item: { id: place.id, type: 'reasoning', summary: [] },
        },
        {
          type: 'response.reasoning_summary_part.added',
          sequence_number: next(),
          ...scope,
          summary_index: 0,
          part: summaryText(''),
        },
      ];
    case 'message':
      return [
        {
          type: 'response.output_item.added',
          sequence_number: next(),
          output_index: place.index,
          item: { id: place.id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
        },
        {
          type: 'response.content_part.added',
          sequence_number: next(),
          ...scope,
          content_index: 0,
          part: outputText(''),
        },
      ];
  }
}

export function textDeltaEvent(
  kind: TextItemKind,
  place: ItemPlace,
  delta: string,
  next: NextSequence,
): ResponsesStreamEvent {
  const scope = { item_id: place.id, output_index: place.index };
  switch (kind) {
    case 'reasoning':
      return {
        type: 'response.reasoning_summary_text.delta',
        sequence_number: next(),
        ...scope,
        summary_index: 0,
        delta,
      };
    case 'message':
      return {
        type: 'response.output_text.delta',
        sequence_number: next(),
        ...scope,
        content_index: 0,
        delta,
        logprobs: [],
      };
  }
}

export function textItemDoneEvents(
  item: ResponsesReasoningItem | ResponsesMessageItem,
  index: number,
  next: NextSequence,
): ResponsesStreamEvent[] {
  const scope = { item_id: item.id, output_index: index };
  const events: ResponsesStreamEvent[] = [];
  switch (item.type) {
    case 'reasoning': {
      const part = item.summary[0] ?? summaryText('');
      events.push(
        {
          type: 'response.reasoning_summary_text.done',
          sequence_number: next(),
          ...scope,
          summary_index: 0,
          text: part.text,
        },
        { type: 'response.reasoning_summary_part.done', sequence_number: next(), ...scope, summary_index: 0, part },
      );
      break;
    }
    case 'message': {
      const part = item.content[0] ?? outputText('');
      events.push(
        {
          type: 'response.output_text.done',
          sequence_number: next(),
          ...scope,
          content_index: 0,
          text: part.text,
          logprobs: [],
        },
        { type: 'response.content_part.done', sequence_number: next(), ...scope, content_index: 0, part },
      );
      break;
    }
  }
  events.push({ type: 'response.output_item.done', sequence_number: next(), output_index: index, item });
  return events;
}

/** Every event of a whole call, from added to done. */
export function callItemEvents(item: ResponsesCallItem, index: number, next: NextSequence): ResponsesStreamEvent[] {
  const scope = { item_id: item.id, output_index: index };
  const events: ResponsesStreamEvent[] = [];
  switch (item.type) {
    case 'function_call':
      events.push({
        type: 'response.output_item.added',
        sequence_number: next(),
        output_index: index,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      if (item.arguments !== '') {
        events.push({
          type: 'response.function_call_arguments.delta',
          sequence_number: next(),
          ...scope,
          delta: item.arguments,
        });
      }
      events.push({
        type: 'response.function_call_arguments.done',
        sequence_number: next(),
        ...scope,
        name: item.name,
        arguments: item.arguments,
      });
      break;
    case 'custom_tool_call':
      events.push({
        type: 'response.output_item.added',
        sequence_number: next(),
        output_index: index,
        item: { ...item, input: '' },
      });
      if (item.input !== '') {
        events.push({
          type: 'response.custom_tool_call_input.delta',
          sequence_number: next(),
          ...scope,
          delta: item.input,
        });
      }
      events.push({
        type: 'response.custom_tool_call_input.done',
        sequence_number: next(),
        ...scope,
        input: item.input,
      });
      break;
    case 'local_shell_call':
      // OpenAI sends the whole action at once: there are no delta events for it.
      events.push({
        type: 'response.output_item.added',
        sequence_number: next(),
        output_index: index,
        item: { ...item, status: 'in_progress' },
      });
      break;
  }
  events.push({ type: 'response.output_item.done', sequence_number: next(), output_index: index, item });
  return events;
}
