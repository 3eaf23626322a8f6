import { describe, expect, it } from '@jest/globals';
import {
  longestStopSequence,
  mapAnthropicStopReason,
} from '../../../../../lib/core/protocols/anthropic/map-anthropic-stop-reason';

const PLAIN = { calledTools: false, text: 'Hello.', stopSequences: [] };

describe('mapAnthropicStopReason', () => {
  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['load', 'end_turn'],
    ['unload', 'end_turn'],
    ['something-new', 'end_turn'],
    [undefined, 'end_turn'],
    [null, 'end_turn'],
  ])('maps %p to %p', (doneReason, stopReason) => {
    expect(mapAnthropicStopReason(doneReason, PLAIN)).toEqual({ stop_reason: stopReason, stop_sequence: null });
  });

  it.each(['stop', 'length', undefined])('stops with tool_use whenever tools were called (%p)', (doneReason) => {
    expect(mapAnthropicStopReason(doneReason, { ...PLAIN, calledTools: true, stopSequences: ['.'] })).toEqual({
      stop_reason: 'tool_use',
      stop_sequence: null,
    });
  });

  it('names the first stop sequence in the client order that the text ends with', () => {
    const end = { calledTools: false, text: 'All done. END', stopSequences: ['STOP', 'END', 'ND', ''] };

    expect(mapAnthropicStopReason('stop', end)).toEqual({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
  });

  it('prefers max_tokens to a stop sequence the budget cut happened to end on', () => {
    const end = { calledTools: false, text: 'so END', stopSequences: ['END'] };

    expect(mapAnthropicStopReason('length', end).stop_reason).toBe('max_tokens');
  });

  it('ignores an empty stop sequence', () => {
    expect(mapAnthropicStopReason('stop', { ...PLAIN, stopSequences: [''] }).stop_reason).toBe('end_turn');
  });
});

describe('longestStopSequence', () => {
  it('measures the longest stop sequence, 0 when there is none', () => {
    expect(longestStopSequence(['END', '\n\nHuman:'])).toBe(8);
    expect(longestStopSequence([])).toBe(0);
  });
});
