import { describe, expect, it } from '@jest/globals';
import {
  anthropicSystemPrompt,
  normalizeBillingFingerprint,
} from '../../../../../lib/core/protocols/anthropic/anthropic-system-prompt';

describe('normalizeBillingFingerprint', () => {
  it('replaces every cch fingerprint and nothing else', () => {
    const prompt =
      'x-anthropic-billing-header: cc_version=2.0.14.abc; cc_entrypoint=cli; cch=9F3a0c1e;\nmatch=cch; cch=zz;';

    expect(normalizeBillingFingerprint(prompt)).toBe(
      'x-anthropic-billing-header: cc_version=2.0.14.abc; cc_entrypoint=cli; cch=NORMALIZED;\nmatch=cch; cch=zz;',
    );
  });

  it('gives two turns that differ only in the fingerprint the same prompt', () => {
    expect(normalizeBillingFingerprint('a cch=01ab; b')).toBe(normalizeBillingFingerprint('a cch=ff90; b'));
  });
});

describe('anthropicSystemPrompt', () => {
  it.each([
    ['nothing', { system: undefined, systemTurns: [] }, undefined],
    ['an empty system', { system: '', systemTurns: [''] }, undefined],
    ['a string', { system: 'Be brief.', systemTurns: [] }, 'Be brief.'],
    [
      'text blocks and system turns',
      {
        system: [
          { type: 'text' as const, text: 'A.' },
          { type: 'text' as const, text: 'B.' },
        ],
        systemTurns: ['C.'],
      },
      'A.\nB.\nC.',
    ],
    ['an instruction alone', { system: null, systemTurns: [], toolInstruction: 'Call a tool.' }, 'Call a tool.'],
    [
      'a prompt and an instruction',
      { system: 'cch=abc; Be brief.', systemTurns: [], toolInstruction: 'Call a tool.' },
      'cch=NORMALIZED; Be brief.\n\nCall a tool.',
    ],
  ])('builds the prompt from %s', (_case, parts, prompt) => {
    expect(anthropicSystemPrompt(parts)).toBe(prompt);
  });
});
