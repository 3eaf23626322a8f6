import { describe, expect, it } from '@jest/globals';
import { MAX_RUN_CHARS, SEGMENT_CHARS, tokenSegments } from '../../../../lib/core/tokens/token-segments';
import { sampleText } from './sample-text';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('tokenSegments', () => {
  it('gives nothing for an empty text and the text itself for a short one', () => {
    expect([...tokenSegments('')]).toEqual([]);
    expect([...tokenSegments('hello world')]).toEqual(['hello world']);
  });

  it('cuts long ordinary text only before a space between two non-spaces', () => {
    const text = sampleText(50_000);

    const segments = [...tokenSegments(text)];

    expect(segments.join('')).toBe(text);
    expect(segments.length).toBeGreaterThan(3);
    for (const segment of segments.slice(0, -1)) expect(segment.length).toBeGreaterThanOrEqual(SEGMENT_CHARS);
    for (const segment of segments.slice(1)) expect(segment).toMatch(/^ \S/);
    for (const [index, segment] of segments.slice(0, -1).entries()) {
      expect(segment).toMatch(/\S$/);
      expect(segments[index + 1]?.startsWith(' ')).toBe(true);
    }
  });

  it('cuts runs of one class every MAX_RUN_CHARS characters', () => {
    expect([...tokenSegments('x'.repeat(300))].map((segment) => segment.length)).toEqual([
      MAX_RUN_CHARS,
      MAX_RUN_CHARS,
      300 - 2 * MAX_RUN_CHARS,
    ]);
    expect([...tokenSegments(' '.repeat(200))].map((segment) => segment.length)).toEqual([MAX_RUN_CHARS, 72]);
    expect([...tokenSegments('-'.repeat(129))].map((segment) => segment.length)).toEqual([MAX_RUN_CHARS, 1]);
    expect([...tokenSegments('1'.repeat(1_000))]).toHaveLength(1);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const text = `-${'🙂'.repeat(300)}`;

    const segments = [...tokenSegments(text)];

    expect(segments.join('')).toBe(text);
    expect(segments.length).toBeGreaterThan(1);
    for (const segment of segments) expect(segment).not.toMatch(LONE_SURROGATE);
  });

  it('cuts a prefix where it cuts the whole text', () => {
    const text = `${sampleText(20_000)}${'z'.repeat(500)}${sampleText(20_000, 2)}`;
    const whole = [...tokenSegments(text)];
    const prefix = text.slice(0, 30_000);

    const segments = [...tokenSegments(prefix)];

    expect(segments.slice(0, -1)).toEqual(whole.slice(0, segments.length - 1));
  });
});
