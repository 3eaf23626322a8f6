import { describe, expect, it } from '@jest/globals';
import {
  encodeSseData,
  encodeSseEvent,
  encodeSseRetry,
  SSE_DONE,
  SSE_KEEP_ALIVE,
} from '../../../../lib/core/stream/sse';

describe('encodeSseData', () => {
  it('writes one data line and a blank line', () => {
    expect(encodeSseData({ id: 'chatcmpl-1', choices: [] })).toBe('data: {"id":"chatcmpl-1","choices":[]}\n\n');
  });

  it('keeps a payload with line breaks on one line', () => {
    expect(encodeSseData({ content: 'a\nb\r\nc' })).toBe('data: {"content":"a\\nb\\r\\nc"}\n\n');
  });

  it('refuses a value JSON cannot encode', () => {
    expect(() => encodeSseData(undefined)).toThrow(TypeError);
  });
});

describe('encodeSseEvent', () => {
  it('writes the event name and its data', () => {
    expect(encodeSseEvent('message_stop', { type: 'message_stop' })).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  });

  it.each(['', 'a\nb', 'a\rb'])('refuses the event name %j', (name) => {
    expect(() => encodeSseEvent(name, {})).toThrow(TypeError);
  });
});

describe('encodeSseRetry', () => {
  it('writes the reconnection delay as a field of its own', () => {
    expect(encodeSseRetry(3000)).toBe('retry: 3000\n\n');
  });

  it('refuses a delay that is not a whole number of milliseconds', () => {
    expect(() => encodeSseRetry(1.5)).toThrow(TypeError);
  });
});

describe('SSE constants', () => {
  it('ends an OpenAI stream with [DONE] and keeps a connection alive with a comment', () => {
    expect(SSE_DONE).toBe('data: [DONE]\n\n');
    expect(SSE_KEEP_ALIVE.startsWith(':')).toBe(true);
  });
});
