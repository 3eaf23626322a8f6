import { describe, expect, it, jest } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { createTraceRecorder, type TracePage } from '../../../../lib/services/analytics/trace';
import type { ItemSource } from '../../../../lib/services/store/write-behind';

const trace = (requestId: string, more: Partial<Trace> = {}): Trace => ({
  requestId,
  startedAt: 1_795_698_955_078,
  style: 'ollama-chat',
  status: 'completed',
  requestedModel: 'llama3.2:3b',
  servedModel: 'llama3.2:3b',
  nodeId: 'gpu-1',
  latencyMs: 40,
  retries: 0,
  tags: ['app:docs'],
  clientIp: '10.0.0.9',
  ...more,
});

/** A recorder on a queue stand-in, its end-of-turn writes held until `endTurn()`. */
function recorder() {
  const sources: ItemSource[] = [];
  const queue = { addSource: (source: ItemSource) => sources.push(source), touch: jest.fn() };
  const turns: (() => void)[] = [];
  const traces = createTraceRecorder(queue, { instanceId: 'i-1', defer: (write) => turns.push(write) });
  const source = sources[0] as ItemSource;
  const drained = () => {
    const pages = source.drain().map((item) => JSON.parse(Buffer.from(item.doc).toString()) as TracePage);
    return {
      ids: pages.flatMap((page) => page.traces.map((t) => t.requestId)),
      counters: source.drainCounters?.() ?? [],
    };
  };
  const endTurn = () => {
    for (const write of turns.splice(0)) write();
  };
  return { traces, queue, turns, source, drained, endTurn };
}

describe('the trace recorder', () => {
  it('writes the traces of one turn of the event loop together, at its end, and tells the queue once', () => {
    const { traces, queue, turns, source, drained, endTurn } = recorder();

    traces.record(trace('a'));
    traces.record(trace('b'));
    traces.record(trace('c'));

    expect(turns).toHaveLength(1);
    expect(queue.touch).toHaveBeenCalledTimes(1);
    expect(source.hasPending()).toBe(true);
    endTurn();
    const { ids, counters } = drained();
    expect(ids).toEqual(['a', 'b', 'c']);
    // The three add to the same rollups: one counter write per key, each counting 3.
    expect(counters.length).toBeGreaterThan(0);
    expect(counters.every((write) => write.counters['requests'] === 3)).toBe(true);
    expect(source.hasPending()).toBe(false);
  });

  it('loses nothing to a drain that comes before the turn ends (a Lambda invocation’s last flush)', () => {
    const { traces, turns, drained, endTurn } = recorder();

    traces.record(trace('a'));
    traces.record(trace('b'));
    const { ids, counters } = drained();
    endTurn();

    expect(turns).toHaveLength(0);
    expect(ids).toEqual(['a', 'b']);
    expect(counters.every((write) => write.counters['requests'] === 2)).toBe(true);
    expect(drained().ids).toEqual([]);
  });

  it('starts a new turn after the last one was written', () => {
    const { traces, queue, turns, drained, endTurn } = recorder();

    traces.record(trace('a'));
    endTurn();
    traces.record(trace('b'));

    expect(queue.touch).toHaveBeenCalledTimes(2);
    expect(turns).toHaveLength(1);
    endTurn();
    expect(drained().ids).toEqual(['a', 'b']);
  });

  it('writes the rest of a turn when one trace cannot be written, and says so', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const { traces, drained, endTurn } = recorder();

      traces.record(trace('a'));
      // JSON cannot hold a bigint: the only way a typed trace fails to serialise.
      traces.record(trace('bad', { score: 1n as unknown as number }));
      traces.record(trace('c'));
      endTurn();

      expect(drained().ids).toEqual(['a', 'c']);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('a trace could not be written'));
    } finally {
      warn.mockRestore();
    }
  });
});
