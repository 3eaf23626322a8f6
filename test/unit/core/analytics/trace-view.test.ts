import { describe, expect, it } from '@jest/globals';
import { traceView } from '../../../../lib/core/analytics/trace-view';

describe('traceView', () => {
  it('shows the reference fields and every other recorded one, snake_case', () => {
    const view = traceView({
      requestId: 'req-1',
      startedAt: 1_764_115_200_123,
      style: 'anthropic-messages',
      status: 'completed',
      requestedModel: 'claude-sonnet',
      servedModel: 'qwen3:32b',
      nodeId: 'gpu-1',
      score: 87.5,
      scoreBreakdown: { thermal: 50, queue: 37.5 },
      latencyMs: 1234,
      timeToFirstTokenMs: 210,
      promptTokens: 900,
      completionTokens: 120,
      retries: 1,
      fallbackModel: 'qwen3:32b',
      skipped: ['gpu-2 (ejected 30 s: 3 failures)'],
      context: 'fits',
      tags: ['app:ide', 'user:bo'],
      clientIp: '10.0.0.9',
      finishReason: 'stop',
      cachedTokens: 512,
      loadMs: 0,
      promptEvalMs: 45.5,
      evalMs: 800,
      promptEstimateTokens: 1400,
      tableWaitMs: 4,
      queueWaitMs: 1250,
      priority: 'low',
      app: 'tag:nightly',
      key: 'team-a',
      benchmarkRunId: 'run-7',
    });

    expect(view).toEqual({
      request_id: 'req-1',
      model: 'qwen3:32b',
      original_model: 'claude-sonnet',
      node_id: 'gpu-1',
      score: 87.5,
      scores_breakdown: { thermal: 50, queue: 37.5 },
      status: 'completed',
      latency_ms: 1234,
      time_to_first_token_ms: 210,
      prompt_tokens: 900,
      completion_tokens: 120,
      retry_count: 1,
      fallback_used: true,
      fallback_model: 'qwen3:32b',
      excluded_nodes: ['gpu-2 (ejected 30 s: 3 failures)'],
      client_ip: '10.0.0.9',
      original_format: 'anthropic-messages',
      error_message: null,
      timestamp: 1_764_115_200.123,
      tags: ['app:ide', 'user:bo'],
      finish_reason: 'stop',
      context: 'fits',
      cached_tokens: 512,
      load_ms: 0,
      prompt_eval_ms: 45.5,
      eval_ms: 800,
      prompt_estimate_tokens: 1400,
      table_wait_ms: 4,
      queue_wait_ms: 1250,
      priority: 'low',
      app: 'tag:nightly',
      key: 'team-a',
      benchmark_run_id: 'run-7',
    });
  });

  it('says null for what a failed request never had, and the asked-for model as the model', () => {
    const view = traceView({
      requestId: 'req-2',
      startedAt: 1_764_115_200_000,
      style: 'ollama-chat',
      status: 'failed',
      requestedModel: 'llama3:8b',
      latencyMs: 5,
      retries: 0,
      tags: [],
      clientIp: '127.0.0.1',
      error: 'no node has llama3:8b',
    });

    expect(view).toMatchObject({
      model: 'llama3:8b',
      node_id: null,
      score: null,
      scores_breakdown: null,
      time_to_first_token_ms: null,
      prompt_tokens: null,
      fallback_used: false,
      excluded_nodes: [],
      error_message: 'no node has llama3:8b',
      load_ms: null,
    });
  });
});
