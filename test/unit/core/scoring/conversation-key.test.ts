import { describe, expect, it } from '@jest/globals';
import { conversationKey } from '../../../../lib/core/scoring/conversation-key';

const turn = { model: 'llama3.2:3b', tags: [], systemPrompt: 'You are terse.', firstUserTurn: 'Hello' };

describe('conversationKey', () => {
  it('is the session tag when the request carries one', () => {
    expect(conversationKey({ ...turn, tags: ['team:a', 'session:abc', 'session:def'] })).toBe('session:abc');
  });

  it('ignores an empty session tag', () => {
    expect(conversationKey({ ...turn, tags: ['session:'] })).toMatch(/^conv:/);
  });

  it('is a stable hash of the model, the system prompt and the first user turn', () => {
    const key = conversationKey(turn);
    expect(key).toMatch(/^conv:[A-Za-z0-9_-]{22}$/);
    expect(conversationKey({ ...turn, tags: ['team:a'] })).toBe(key);
  });

  it('differs when the first turn, the system prompt or the model differs', () => {
    const key = conversationKey(turn);
    expect(conversationKey({ ...turn, firstUserTurn: 'Hello!' })).not.toBe(key);
    expect(conversationKey({ ...turn, systemPrompt: 'You are verbose.' })).not.toBe(key);
    expect(conversationKey({ ...turn, systemPrompt: undefined })).not.toBe(key);
    expect(conversationKey({ ...turn, model: 'qwen3:8b' })).not.toBe(key);
  });

  it('does not run fields together', () => {
    const a = conversationKey({ model: 'm', tags: [], systemPrompt: 'ab', firstUserTurn: 'c' });
    const b = conversationKey({ model: 'm', tags: [], systemPrompt: 'a', firstUserTurn: 'bc' });
    expect(a).not.toBe(b);
  });

  it('is absent when there is no user turn and no session tag', () => {
    expect(conversationKey({ model: 'm', tags: [] })).toBeUndefined();
    expect(conversationKey({ model: 'm', tags: [], firstUserTurn: '' })).toBeUndefined();
  });
});
