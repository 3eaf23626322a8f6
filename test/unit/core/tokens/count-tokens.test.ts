import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { countTokens } from '../../../../lib/core/tokens/count-tokens';
import { MAX_RUN_CHARS, tokenSegments } from '../../../../lib/core/tokens/token-segments';
import { encoderCount, sampleText } from './sample-text';

describe('countTokens', () => {
  it.each([
    ['', 0],
    ['hello world', 2],
    ['Hello, world!', 4],
    ['tiktoken is great!', 6],
    ['antidisestablishmentarianism', 6],
    ['    indented\n\n\ttab', 5],
    ['日本語のテキスト、そして中文。', 13],
    ['🙂 emoji 👍🏽', 8],
    ['{"path":"/tmp/x.txt","limit":250}', 11],
  ])('counts %j as %i cl100k_base tokens', (text, tokens) => {
    expect(countTokens(text)).toBe(tokens);
  });

  it('counts special-token text as plain text instead of throwing', () => {
    expect(countTokens('<|endoftext|>')).toBe(7);
    expect(countTokens('a <|endoftext|> b')).toBe(8);
    expect(countTokens('<|fim_prefix|><|im_start|>')).toBe(12);
  });

  it('equals the encoder on long ordinary text, across many segments', () => {
    const text = sampleText(100_000);

    expect(countTokens(text)).toBe(encoderCount(text));
  });

  it('equals the encoder on any text without long runs', () => {
    const word = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
      fc.constantFrom(' ', '  ', '\n', '\r\n', '\t', '<|endoftext|>', "'s", '123456'),
    );
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
    fc.assert(
      fc.property(fc.array(word, { maxLength: 3000 }), (words) => {
        const text = words.join(' ');
        expect(countTokens(text)).toBe(encoderCount(text));
      }),
      { numRuns: 40 },
    );
  });

  it('stays within one token per cut of the encoder on long runs', () => {
    let state = 7;
    const letters = Array.from({ length: 5_000 }, () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return String.fromCharCode(97 + (state % 26));
    }).join('');
    const cuts = Math.floor(letters.length / 128);

    const counted = countTokens(letters);

    expect(counted).toBeGreaterThanOrEqual(encoderCount(letters));
    expect(counted).toBeLessThanOrEqual(encoderCount(letters) + cuts);
  });

  it('counts a megabyte of one run of letters in pieces of bounded length, so its work is linear', () => {
    let state = 3;
    const blob = Array.from({ length: 1 << 20 }, () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return String.fromCharCode(97 + (state % 26));
    }).join('');

    // The encoder's merges are quadratic in a piece's length (4–6 s on 64 KB of this whole): what keeps
    // the count linear is that no piece it is handed is longer than a run may be.
    const segments = [...tokenSegments(blob)];

    expect(segments.join('')).toBe(blob);
    expect(Math.max(...segments.map((segment) => segment.length))).toBeLessThanOrEqual(MAX_RUN_CHARS);
    expect(countTokens(blob)).toBeGreaterThan(300_000);
  });
});
