import { describe, expect, it } from '@jest/globals';
import { type BenchmarkSample, buildBenchmarkReport } from '../../../../lib/core/benchmarks/benchmark-report';

const chat = (nodeId: string, latencyMs: number, ttftMs: number, completionTokens: number): BenchmarkSample => ({
  type: 'llm',
  model: 'llama3.2:3b',
  nodeId,
  ok: true,
  latencyMs,
  ttftMs,
  promptTokens: 10,
  completionTokens,
  decodeTokensPerSec: completionTokens * 10,
});

describe('buildBenchmarkReport', () => {
  it('adds up the run per model and per node, over its wall time', () => {
    const samples = [
      chat('a', 100, 10, 20),
      chat('a', 300, 30, 40),
      chat('b', 200, 20, 60),
      { type: 'embed', model: 'nomic-embed-text', nodeId: undefined, ok: false, latencyMs: 5 } as const,
    ];

    const report = buildBenchmarkReport(samples, 2_000, { fleet: 0.5, per_node: { a: 1 } });

    expect(report).toMatchObject({
      elapsed_s: 2,
      requests_completed: 3,
      requests_failed: 1,
      requests_per_sec: 1.5,
      tok_per_sec: 60,
      prompt_tokens: 30,
      completion_tokens: 120,
      peak_utilisation: { fleet: 0.5, per_node: { a: 1 } },
    });
    expect(report.per_model['llama3.2:3b']).toMatchObject({
      type: 'llm',
      requests_completed: 3,
      latency_ms: { p50: 200, p99: 298, count: 3 },
      ttft_ms: { p50: 20 },
      decode_tok_per_sec: { min: 200, max: 600 },
    });
    expect(report.per_model['nomic-embed-text']).toMatchObject({ type: 'embed', requests_failed: 1, latency_ms: null });
    expect(Object.keys(report.per_node)).toEqual(['a', 'b']);
    expect(report.per_node['b']).toMatchObject({ requests_completed: 1, tok_per_sec: 30 });
  });
});
