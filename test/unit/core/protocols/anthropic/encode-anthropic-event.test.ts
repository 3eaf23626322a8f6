import { describe, expect, it } from '@jest/globals';
import { encodeAnthropicEvent } from '../../../../../lib/core/protocols/anthropic/encode-anthropic-event';

describe('encodeAnthropicEvent', () => {
  it('names the event after its type, with the payload on one data line', () => {
    expect(
      encodeAnthropicEvent({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'a\nb' } }),
    ).toBe(
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a\\nb"}}\n\n',
    );
  });

  it('encodes the error event the SDK throws on', () => {
    expect(encodeAnthropicEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
  });
});
