/**
 * The events of a Responses stream (protocols §4.3), as a discriminated union on `type`: each is written
 * as `event: <type>` + `data: <json>` (`encodeResponsesEvent`). Every event carries `sequence_number`,
 * 0 for the first and one more for each next over the whole stream. Only events openai-node 7.55's
 * accumulator knows are listed: it throws on any other type. Pure.
 */
import type {
  ResponsesOutputItem,
  ResponsesOutputText,
  ResponsesResponse,
  ResponsesSummaryText,
} from '../../wire/responses';

interface Sequenced {
  readonly sequence_number: number;
}

/** The lifecycle events: each carries the whole response object as it stands. */
export interface ResponsesLifecycleEvent extends Sequenced {
  readonly type:
    | 'response.created'
    | 'response.in_progress'
    | 'response.completed'
    | 'response.incomplete'
    | 'response.failed';
  readonly response: ResponsesResponse;
}

export interface ResponsesOutputItemEvent extends Sequenced {
  readonly type: 'response.output_item.added' | 'response.output_item.done';
  readonly output_index: number;
  readonly item: ResponsesOutputItem;
}

interface ItemScoped extends Sequenced {
  readonly item_id: string;
  readonly output_index: number;
}

export interface ResponsesContentPartEvent extends ItemScoped {
  readonly type: 'response.content_part.added' | 'response.content_part.done';
  readonly content_index: number;
  readonly part: ResponsesOutputText;
}

export interface ResponsesOutputTextDeltaEvent extends ItemScoped {
  readonly type: 'response.output_text.delta';
  readonly content_index: number;
  readonly delta: string;
  readonly logprobs: readonly never[];
}

export interface ResponsesOutputTextDoneEvent extends ItemScoped {
  readonly type: 'response.output_text.done';
  readonly content_index: number;
  readonly text: string;
  readonly logprobs: readonly never[];
}

export interface ResponsesSummaryPartEvent extends ItemScoped {
  readonly type: 'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done';
  readonly summary_index: number;
  readonly part: ResponsesSummaryText;
}

export interface ResponsesSummaryTextDeltaEvent extends ItemScoped {
  readonly type: 'response.reasoning_summary_text.delta';
  readonly summary_index: number;
  readonly delta: string;
}

export interface ResponsesSummaryTextDoneEvent extends ItemScoped {
  readonly type: 'response.reasoning_summary_text.done';
  readonly summary_index: number;
  readonly text: string;
}

export interface ResponsesArgumentsDeltaEvent extends ItemScoped {
  readonly type: 'response.function_call_arguments.delta' | 'response.custom_tool_call_input.delta';
  readonly delta: string;
}

export interface ResponsesArgumentsDoneEvent extends ItemScoped {
  readonly type: 'response.function_call_arguments.done';
  /** Not in openai-node's type, but OpenAI sends it and agents read it. */
  readonly name: string;
  readonly arguments: string;
}

export interface ResponsesCustomInputDoneEvent extends ItemScoped {
  readonly type: 'response.custom_tool_call_input.done';
  readonly input: string;
}

/** A failure after the first byte (ARCHITECTURE.md §9.4); openai-node throws `APIError` when it reads one. */
export interface ResponsesErrorEvent extends Sequenced {
  readonly type: 'error';
  readonly code: string | null;
  readonly message: string;
  readonly param: string | null;
}

export type ResponsesStreamEvent =
  | ResponsesLifecycleEvent
  | ResponsesOutputItemEvent
  | ResponsesContentPartEvent
  | ResponsesOutputTextDeltaEvent
  | ResponsesOutputTextDoneEvent
  | ResponsesSummaryPartEvent
  | ResponsesSummaryTextDeltaEvent
  | ResponsesSummaryTextDoneEvent
  | ResponsesArgumentsDeltaEvent
  | ResponsesArgumentsDoneEvent
  | ResponsesCustomInputDoneEvent
  | ResponsesErrorEvent;

/** True for the event that ends a stream: nothing is written after it. */
export function isTerminalResponsesEvent(event: ResponsesStreamEvent): boolean {
  switch (event.type) {
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed':
      return true;
    case 'response.created':
    case 'response.in_progress':
    case 'response.output_item.added':
    case 'response.output_item.done':
    case 'response.content_part.added':
    case 'response.content_part.done':
    case 'response.output_text.delta':
    case 'response.output_text.done':
    case 'response.reasoning_summary_part.added':
    case 'response.reasoning_summary_part.done':
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_summary_text.done':
    case 'response.function_call_arguments.delta':
    case 'response.function_call_arguments.done':
    case 'response.custom_tool_call_input.delta':
    case 'response.custom_tool_call_input.done':
    case 'error':
      return false;
  }
}
