import { describe, expect, it } from '@jest/globals';
import { SUMMARY_MAX_TOKENS } from '../../../../lib/core/context/select-compaction-candidates';
import {
  SUMMARY_STRATEGY,
  summarisedToolResult,
  summaryCacheKey,
  summaryMessages,
} from '../../../../lib/core/context/summarised-tool-result';
import { countTokens } from '../../../../lib/core/tokens/count-tokens';
import { sampleText } from '../tokens/sample-text';

describe('summarisedToolResult', () => {
  it('opens with the marker of the tokens before and after', () => {
    expect(summarisedToolResult('  src/a.ts: 3 tests fail (TypeError at line 12)\n', 2400)).toBe(
      `[summarised 2400→${countTokens('src/a.ts: 3 tests fail (TypeError at line 12)')} tokens]\nsrc/a.ts: 3 tests fail (TypeError at line 12)`,
    );
  });

  it(`cuts a long answer to ${SUMMARY_MAX_TOKENS} tokens`, () => {
    const replacement = summarisedToolResult(sampleText(20_000), 9000) ?? '';
    const [marker, ...rest] = replacement.split('\n');
    const text = rest.join('\n');

    expect(countTokens(text)).toBeLessThanOrEqual(SUMMARY_MAX_TOKENS);
    expect(marker).toBe(`[summarised 9000→${countTokens(text)} tokens]`);
  });

  it('gives nothing for an empty answer', () => {
    expect(summarisedToolResult(' \n ', 2000)).toBeUndefined();
  });
});

describe('summaryCacheKey', () => {
  it('is the strategy and the sha256 of the content', () => {
    expect(summaryCacheKey('hello')).toBe(
      `${SUMMARY_STRATEGY}#2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824`,
    );
    expect(summaryCacheKey('hello!')).not.toBe(summaryCacheKey('hello'));
  });
});

describe('summaryMessages', () => {
  it('asks with a system instruction and the result as the user turn', () => {
    const [system, user] = summaryMessages('the output');

    expect(system?.role).toBe('system');
    expect(user).toEqual({ role: 'user', content: 'Tool result:\n\nthe output' });
  });
});
