import { describe, expect, it } from '@jest/globals';
import { formatTraceparent, idFromBytes, parseTraceparent } from '../../../../lib/core/telemetry/trace-context';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads the trace, the parent span and the sampled flag of a version 00 header', () => {
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-01`)).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      sampled: true,
    });
    expect(parseTraceparent(`00-${TRACE_ID}-${SPAN_ID}-00`)).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      sampled: false,
    });
  });

  it('accepts a later version with more fields after a dash', () => {
    expect(parseTraceparent(`01-${TRACE_ID}-${SPAN_ID}-03-more`)?.sampled).toBe(true);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['version ff', `ff-${TRACE_ID}-${SPAN_ID}-01`],
    ['version 00 with more fields', `00-${TRACE_ID}-${SPAN_ID}-01-more`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['no dashes', `00${TRACE_ID}${SPAN_ID}01xxx`],
  ])('ignores a header that is %s', (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('formatTraceparent', () => {
  it('writes version 00 with the sampled flag, and reads back the same', () => {
    const header = formatTraceparent({ traceId: TRACE_ID, spanId: SPAN_ID, sampled: true });

    expect(header).toBe(`00-${TRACE_ID}-${SPAN_ID}-01`);
    expect(parseTraceparent(header)).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, sampled: true });
  });
});

describe('idFromBytes', () => {
  it('writes lower-case hex, two digits a byte, and never an all-zero id', () => {
    expect(idFromBytes(Uint8Array.from([0, 15, 255, 16]))).toBe('000fff10');
    expect(idFromBytes(new Uint8Array(8))).toBe('0000000000000001');
  });
});
