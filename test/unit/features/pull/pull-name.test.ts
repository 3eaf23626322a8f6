import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../lib/core/errors';
import { canonicalPullName, MISSING_NAME_MESSAGE, pullNameOf } from '../../../../lib/features/pull/pull-name';

describe('pullNameOf', () => {
  it('takes name, trimmed', () => {
    expect(pullNameOf({ name: '  llama3.2:3b \n' })).toBe('llama3.2:3b');
  });

  it('takes model when name is absent', () => {
    expect(pullNameOf({ model: 'qwen3:8b' })).toBe('qwen3:8b');
  });

  it('prefers name over model', () => {
    expect(pullNameOf({ name: 'a', model: 'b' })).toBe('a');
  });

  it('falls back to model when name is blank', () => {
    expect(pullNameOf({ name: '   ', model: 'b' })).toBe('b');
  });

  it.each([[{}], [{ name: '' }], [{ name: null, model: '  ' }]])('refuses %j with 400 naming both fields', (body) => {
    const attempt = () => pullNameOf(body);

    expect(attempt).toThrow(BadRequestError);
    expect(attempt).toThrow(MISSING_NAME_MESSAGE);
    expect(MISSING_NAME_MESSAGE).toBe("model name required (use 'name' or 'model' field)");
  });
});

describe('canonicalPullName', () => {
  it.each([
    ['llama3', 'llama3:latest'],
    ['llama3:latest', 'llama3:latest'],
    ['Llama3', 'llama3:latest'],
    ['qwen3:8B', 'qwen3:8b'],
    ['hf.co/org/model', 'hf.co/org/model:latest'],
    ['registry.local:5000/team/model', 'registry.local:5000/team/model:latest'],
  ])('keys %s as %s', (name, canonical) => {
    expect(canonicalPullName(name)).toBe(canonical);
  });
});
