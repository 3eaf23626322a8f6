import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import {
  boundedTrace,
  cutUtf8,
  MAX_TRACE_BYTES,
  MAX_TRACE_ERROR_CHARS,
  MAX_TRACE_NAME_BYTES,
  MAX_TRACE_NODE_ID_BYTES,
} from '../../../../lib/services/analytics/bounded-trace';
import { MAX_PAGE_BYTES } from '../../../../lib/services/analytics/trace';
import { TracePages } from '../../../../lib/services/analytics/trace-pages';

const trace = (overrides: Partial<Trace>): Trace => ({
  requestId: 'r-1',
  startedAt: 1_000,
  style: 'ollama-chat',
  status: 'completed',
  requestedModel: 'llama3.2:3b',
  servedModel: 'llama3.2:3b',
  nodeId: 'gpu-1',
  latencyMs: 10,
  retries: 0,
  tags: ['app:chat'],
  clientIp: '10.0.0.9',
  ...overrides,
});

/** Text that neither deflate nor UTF-8 makes smaller: random characters from three planes. */
const noisy = (chars: number) =>
  Array.from(randomBytes(chars), (byte) =>
    String.fromCodePoint(([0x41, 0x4e00, 0x1f600][byte % 3] as number) + byte),
  ).join('');

/** Every field a trace carries as free text, each over its bound (the edge would refuse most of them). */
const worst = (id: number) =>
  trace({
    requestId: noisy(300),
    requestedModel: noisy(3000),
    servedModel: noisy(3000),
    fallbackModel: noisy(3000),
    nodeId: noisy(3000),
    clientIp: noisy(300),
    finishReason: noisy(300),
    error: noisy(5000),
    tags: Array.from({ length: 200 }, (_, index) => `${id}-${index}-${noisy(300)}`),
  });

describe('boundedTrace', () => {
  it('returns a trace within its bounds as it is', () => {
    const within = trace({ error: 'x'.repeat(MAX_TRACE_ERROR_CHARS) });

    expect(boundedTrace(within)).toBe(within);
  });

  it('cuts every free-text field of an oversized trace and keeps the rest', () => {
    const cut = boundedTrace(worst(1));

    expect(Buffer.byteLength(JSON.stringify(cut))).toBeLessThanOrEqual(MAX_TRACE_BYTES);
    expect(cut.servedModel).toEqual(expect.any(String));
    expect(cut.nodeId).toEqual(expect.any(String));
    expect(Buffer.byteLength(cut.servedModel ?? '')).toBeLessThanOrEqual(MAX_TRACE_NAME_BYTES);
    expect(Buffer.byteLength(cut.nodeId ?? '')).toBeLessThanOrEqual(MAX_TRACE_NODE_ID_BYTES);
    expect(Buffer.byteLength(`${cut.nodeId}#${cut.servedModel}`)).toBeLessThanOrEqual(1024);
    expect(cut.tags).toHaveLength(64);
    expect(cut).toEqual(expect.objectContaining({ status: 'completed', latencyMs: 10, startedAt: 1_000 }));
  });

  it('never cuts between the halves of a surrogate pair', () => {
    expect(cutUtf8('a😀b', 4)).toBe('a');
    expect(cutUtf8('a😀b', 5)).toBe('a😀');
    expect(cutUtf8('éé', 3)).toBe('é');
  });
});

describe('trace pages of the largest traces', () => {
  it('split so that every page, deflated as stored, stays below the 400 KB item limit', () => {
    const pages = new TracePages(MAX_PAGE_BYTES);
    for (let index = 0; index < 20; index += 1) pages.add(index, JSON.stringify(boundedTrace(worst(index))));

    const docs = pages.take();
    expect(docs.length).toBeGreaterThan(1);
    const kept = docs.flatMap((page) => (JSON.parse(page.doc.toString()) as { traces: Trace[] }).traces);
    expect(kept).toHaveLength(20);
    for (const page of docs) {
      expect(page.doc.length).toBeLessThanOrEqual(MAX_PAGE_BYTES);
      // Keys and attribute names take under 300 bytes.
      expect(deflateRawSync(page.doc, { level: 1 }).length + 300).toBeLessThan(400 * 1024);
    }
  });
});
