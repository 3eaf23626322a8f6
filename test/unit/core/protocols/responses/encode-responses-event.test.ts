import { describe, expect, it } from '@jest/globals';
import { encodeResponsesEvent } from '../../../../../lib/core/protocols/responses/encode-responses-event';
import { mapResponsesStatus } from '../../../../../lib/core/protocols/responses/map-responses-status';
import { isTerminalResponsesEvent } from '../../../../../lib/core/protocols/responses/responses-stream-event';

const delta = {
  type: 'response.output_text.delta',
  sequence_number: 4,
  item_id: 'msg_1_0',
  output_index: 0,
  content_index: 0,
  delta: 'a\nb',
  logprobs: [],
} as const;

describe('encodeResponsesEvent', () => {
  it('names the event after its type and keeps its data on one line', () => {
    expect(encodeResponsesEvent(delta)).toBe(
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1_0","output_index":0,"content_index":0,"delta":"a\\nb","logprobs":[]}\n\n',
    );
  });
});

describe('isTerminalResponsesEvent', () => {
  it('is true for the events that end a stream only', () => {
    const error = { type: 'error', sequence_number: 0, code: null, message: 'x', param: null } as const;

    expect(isTerminalResponsesEvent(delta)).toBe(false);
    expect(isTerminalResponsesEvent(error)).toBe(false);
  });
});

describe('mapResponsesStatus', () => {
  it.each([
    ['length', 'incomplete'],
    ['stop', 'completed'],
    ['load', 'completed'],
    ['unload', 'completed'],
    [undefined, 'completed'],
    [null, 'completed'],
    ['something new', 'completed'],
  ])('maps done_reason %j to %s', (doneReason, status) => {
    expect(mapResponsesStatus(doneReason)).toBe(status);
  });
});
