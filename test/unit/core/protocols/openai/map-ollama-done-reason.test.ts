import { describe, expect, it } from '@jest/globals';
import { mapOllamaDoneReason } from '../../../../../lib/core/protocols/openai/map-ollama-done-reason';

describe('mapOllamaDoneReason', () => {
  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['load', 'stop'],
    ['unload', 'stop'],
    ['something-new', 'stop'],
    [undefined, 'stop'],
    [null, 'stop'],
  ])('maps %p to %p', (doneReason, finishReason) => {
    expect(mapOllamaDoneReason(doneReason, { calledTools: false })).toBe(finishReason);
  });

  it.each(['stop', 'length', undefined])('finishes with tool_calls whenever tools were called (%p)', (doneReason) => {
    expect(mapOllamaDoneReason(doneReason, { calledTools: true })).toBe('tool_calls');
  });
});
