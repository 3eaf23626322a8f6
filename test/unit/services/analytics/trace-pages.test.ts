import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { TracePages } from '../../../../lib/services/analytics/trace-pages';

const entry = (id: string, padding = 0) => JSON.stringify({ requestId: id, error: 'é€😀'.repeat(padding) });
const idsOf = (doc: Buffer) =>
  (JSON.parse(doc.toString()) as { traces: { requestId: string }[] }).traces.map((t) => t.requestId);

describe('TracePages', () => {
  it('has nothing to take before a trace', () => {
    const pages = new TracePages(1000);

    expect(pages.hasPending()).toBe(false);
    expect(pages.take()).toEqual([]);
  });

  it('makes one page of everything recorded, dated by its latest start (a long request is recorded late)', () => {
    const pages = new TracePages(256 * 1024);
    pages.add(5, entry('a'));
    pages.add(7, entry('b'));
    pages.add(3, entry('c'));

    expect(pages.hasPending()).toBe(true);
    const taken = pages.take();
    expect(taken).toHaveLength(1);
    expect(taken[0]?.newestStartedAt).toBe(7);
    expect(JSON.parse(taken[0]?.doc.toString() ?? '')).toEqual({
      traces: [
        { requestId: 'a', error: '' },
        { requestId: 'b', error: '' },
        { requestId: 'c', error: '' },
      ],
    });
    expect(pages.hasPending()).toBe(false);
  });

  it('starts the next page after a take', () => {
    const pages = new TracePages(1000);
    pages.add(1, entry('first'));
    pages.take();
    pages.add(2, entry('second'));

    expect(pages.take().map((page) => [page.newestStartedAt, idsOf(page.doc)])).toEqual([[2, ['second']]]);
  });

  it('gives a trace larger than a page a page of its own', () => {
    const pages = new TracePages(200);
    pages.add(1, entry('small'));
    pages.add(2, entry('large', 100));
    pages.add(3, entry('after'));

    expect(pages.take().map((page) => idsOf(page.doc))).toEqual([['small'], ['large'], ['after']]);
  });

  it('keeps every trace, in order, in pages within the size bound (multi-byte text included)', () => {
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert is synchronous for a synchronous property
    fc.assert(
      fc.property(
        fc.integer({ min: 120, max: 40_000 }),
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 400 }),
        fc.integer({ min: 1, max: 5 }),
        (maxBytes, paddings, takes) => {
          const pages = new TracePages(maxBytes);
          const docs: Buffer[] = [];
          paddings.forEach((padding, index) => {
            pages.add(index, entry(`t${index}`, padding));
            if (index % Math.ceil(paddings.length / takes) === 0) docs.push(...pages.take().map((page) => page.doc));
          });
          docs.push(...pages.take().map((page) => page.doc));

          expect(docs.flatMap(idsOf)).toEqual(paddings.map((_, index) => `t${index}`));
          // Only an entry too big for any page travels alone over the limit.
          const oversized = docs.filter((doc) => idsOf(doc).length > 1 && doc.length > maxBytes);
          expect(oversized).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
