import { describe, expect, it } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { genAiSpan } from '../../../../lib/core/telemetry/gen-ai-span';

const STARTED_AT = 1_764_115_200_000;

function trace(fields: Partial<Trace> = {}): Trace {
  return {
    requestId: 'req-1',
    startedAt: STARTED_AT,
    style: 'openai-chat',
    status: 'completed',
    requestedModel: 'llama3.2',
    latencyMs: 1500,
    retries: 0,
    tags: [],
    clientIp: '10.0.0.9',
    ...fields,
  };
}

describe('genAiSpan', () => {
  it('maps a completed chat to the GenAI attributes and the fleet ones, named by operation and model', () => {
    const span = genAiSpan(
      trace({
        servedModel: 'llama3.2:3b',
        nodeId: 'gpu-1',
        score: 87.5,
        promptTokens: 900,
        completionTokens: 120,
        cachedTokens: 512,
        timeToFirstTokenMs: 250,
        finishReason: 'stop',
        retries: 1,
        fallbackModel: 'llama3.2:3b',
        tags: ['app:ide'],
        priority: 'high',
        app: 'tag:app:ide',
        queueWaitMs: 40,
        tableWaitMs: 3,
        skipped: ['gpu-2 (ejected 30 s: 3 failures)'],
        context: 'fits',
        loadMs: 0,
      }),
    );

    expect(span).toEqual({
      name: 'chat llama3.2',
      startMs: STARTED_AT,
      endMs: STARTED_AT + 1500,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'ollama',
        'gen_ai.request.model': 'llama3.2',
        'gen_ai.response.model': 'llama3.2:3b',
        'gen_ai.usage.input_tokens': 900,
        'gen_ai.usage.output_tokens': 120,
        'gen_ai.usage.cache_read.input_tokens': 512,
        'gen_ai.response.time_to_first_chunk': 0.25,
        'gen_ai.response.finish_reasons': ['stop'],
        'client.address': '10.0.0.9',
        'fleet.request_id': 'req-1',
        'fleet.style': 'openai-chat',
        'fleet.status': 'completed',
        'fleet.retries': 1,
        'fleet.node': 'gpu-1',
        'fleet.score': 87.5,
        'fleet.fallback_model': 'llama3.2:3b',
        'fleet.tags': ['app:ide'],
        'fleet.priority': 'high',
        'fleet.application': 'tag:app:ide',
        'fleet.queue_wait_ms': 40,
        'fleet.table_wait_ms': 3,
        'fleet.skipped': ['gpu-2 (ejected 30 s: 3 failures)'],
        'fleet.context': 'fits',
        'fleet.load_ms': 0,
      },
    });
  });

  it.each([
    ['ollama-chat', 'chat', undefined],
    ['ollama-generate', 'text_completion', undefined],
    ['openai-responses', 'chat', undefined],
    ['anthropic-messages', 'chat', undefined],
    ['embeddings', 'embeddings', undefined],
    ['rerank', 'rerank', undefined],
    ['image', 'generate_content', 'image'],
    ['transcription', 'generate_content', 'text'],
  ] as const)("names a %s request's operation %s", (style, operation, outputType) => {
    const span = genAiSpan(trace({ style, requestedModel: 'm' }));

    expect(span?.name).toBe(`${operation} m`);
    expect(span?.attributes['gen_ai.operation.name']).toBe(operation);
    expect(span?.attributes['gen_ai.output.type']).toBe(outputType);
  });

  it('marks a failure as an error with its code and message, and leaves the absent fields out', () => {
    const span = genAiSpan(
      trace({ status: 'failed', error: 'no node serves llama3.2', errorCode: 'model_not_found', tags: [] }),
    );

    expect(span?.error).toBe('no node serves llama3.2');
    expect(span?.attributes['error.type']).toBe('model_not_found');
    expect(Object.keys(span?.attributes ?? {}).filter((key) => key.startsWith('gen_ai.response'))).toEqual([]);
    expect(span?.attributes['fleet.tags']).toBeUndefined();
  });

  it('names a retried attempt by the model it was sent, an error of the fallback type when no code is known', () => {
    const span = genAiSpan(
      trace({ requestId: 'req-1:attempt-1', status: 'retried', servedModel: 'llama3.2:3b', error: 'refused' }),
    );

    expect(span?.name).toBe('chat llama3.2:3b');
    expect(span?.attributes['error.type']).toBe('_OTHER');
    expect(span?.error).toBe('refused');
  });

  it('leaves the status of a request whose client left unset, saying so under fleet.status', () => {
    const span = genAiSpan(trace({ status: 'client_disconnected' }));

    expect(span?.error).toBeUndefined();
    expect(span?.attributes['error.type']).toBeUndefined();
    expect(span?.attributes['fleet.status']).toBe('client_disconnected');
  });

  it.each(['pull', 'delete', 'copy', 'settings', 'benchmark-start', 'benchmark-cancel'] as const)(
    'makes no span of a change to the fleet (%s)',
    (style) => {
      expect(genAiSpan(trace({ style }))).toBeUndefined();
    },
  );

  it('makes a span of every request to a model', () => {
    expect(genAiSpan(trace({ style: 'rerank' }))).toBeDefined();
  });
});
