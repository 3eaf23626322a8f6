import { describe, expect, it } from '@jest/globals';
import { checkPromptCap } from '../../../../lib/core/context/cap-prompt';
import { RouterError } from '../../../../lib/core/errors';
import { errorBody } from '../../../../lib/core/wire/error-body';

const CAP = 180_000;

function thrown(run: () => void): RouterError {
  try {
    run();
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  throw new Error('expected a RouterError');
}

describe('checkPromptCap', () => {
  it('lets a prompt at or under the cap through', () => {
    expect(() => checkPromptCap(0, CAP)).not.toThrow();
    expect(() => checkPromptCap(CAP, CAP)).not.toThrow();
  });

  it('refuses a prompt over the cap with 413 prompt_too_large, never retried', () => {
    const error = thrown(() => checkPromptCap(CAP + 1, CAP));

    expect(error.status).toBe(413);
    expect(error.code).toBe('prompt_too_large');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(
      'prompt is too long: 180001 tokens > 180000 maximum. The prompt is 180001 tokens after server-side ' +
        'context management, which exceeds the 180000-token cap of this router (FLEET_MAX_PROMPT_TOKENS). ' +
        'Run /compact or start a new conversation.',
    );
  });

  it('renders as an Anthropic request_too_large error', () => {
    const error = thrown(() => checkPromptCap(200_000, CAP));

    expect(errorBody('anthropic', error)).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: error.message },
    });
  });

  it('never refuses when the cap is 0', () => {
    expect(() => checkPromptCap(10_000_000, 0)).not.toThrow();
  });
});
