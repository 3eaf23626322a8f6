import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { createChunkTimeline, gapsBetween } from '../../../bench/chunk-timeline';

const ndjson = (n: number) => `{"message":{"role":"assistant","content":"token${n} "},"done":false}\n`;
const sse = (n: number) => `data: {"choices":[{"index":0,"delta":{"content":"token${n} "}}]}\n\n`;

describe('createChunkTimeline', () => {
  it('stamps each content line with the time its line ended, in either style', () => {
    for (const encode of [ndjson, sse]) {
      const timeline = createChunkTimeline();
      timeline.push(encode(1), 10);
      const second = encode(2);
      timeline.push(second.slice(0, 12), 20);
      timeline.push(second.slice(12), 31);
      timeline.push(`${encode(3)}{"done":true}\n`, 40);

      expect(timeline.summary()).toEqual({ arrivals: [10, 31, 40], merged: 0, outOfOrder: 0 });
    }
  });

  it('ignores lines without content: the role chunk, the final line, blank SSE lines, [DONE]', () => {
    const timeline = createChunkTimeline();
    timeline.push('data: {"choices":[{"delta":{"role":"assistant","content":""}}]}\n\n', 1);
    timeline.push(sse(1), 2);
    timeline.push('data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n', 3);

    expect(timeline.summary().arrivals).toEqual([2]);
  });

  it('counts a line with two tokens as merged, and a token that does not follow as out of order', () => {
    const timeline = createChunkTimeline();
    timeline.push(`{"message":{"content":"token1 token2 "}}\n`, 1);
    timeline.push(ndjson(4), 2);
    timeline.push(ndjson(3), 3);

    expect(timeline.summary()).toEqual({ arrivals: [1, 2, 3], merged: 1, outOfOrder: 2 });
  });

  it('counts a last line that never got its newline, at the time it arrived', () => {
    const timeline = createChunkTimeline();
    timeline.push(ndjson(1), 5);
    timeline.push(ndjson(2).trimEnd(), 9);

    expect(timeline.summary().arrivals).toEqual([5, 9]);
  });

  it('finds the same chunks wherever the text is cut', () => {
    const text = Array.from({ length: 20 }, (_, index) => sse(index + 1)).join('');
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 30 }), (cuts) => {
        const bounds = [0, ...[...cuts].sort((a, b) => a - b), text.length];
        const timeline = createChunkTimeline();
        for (let index = 1; index < bounds.length; index += 1) {
          timeline.push(text.slice(bounds[index - 1], bounds[index]), index);
        }
        const summary = timeline.summary();
        expect(summary.arrivals).toHaveLength(20);
        expect(summary.merged).toBe(0);
        expect(summary.outOfOrder).toBe(0);
        expect(gapsBetween(summary.arrivals).every((gap) => gap >= 0)).toBe(true);
      }),
    );
  });
});

describe('gapsBetween', () => {
  it('gives the time between each arrival and the one before, none for a lone arrival', () => {
    expect(gapsBetween([100, 150, 151, 230])).toEqual([50, 1, 79]);
    expect(gapsBetween([7])).toEqual([]);
    expect(gapsBetween([])).toEqual([]);
  });
});
