/**
 * The context-size advice of the health checks (issue 44 item 1): never below Ollama's default context,
 * always a power of two, and none from fewer requests than `MIN_SIZING_REQUESTS` — the report that
 * advised "Load it with num_ctx 64" for a model whose 24 requests of a day used at most 24 tokens.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { contextForUse, MIN_RECOMMENDED_CTX, MIN_SIZING_REQUESTS } from '../../../../lib/core/analytics/context-usage';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { CONTEXT_CHECKS } from '../../../../lib/core/health/context-checks';
import { healthReport, runChecks } from '../../../../lib/core/health/health-report';
import { makeLoadedModel, makeNodeModel } from '../../../helpers/factories';
import { CHAT, type FleetTrace, HEALTHY_RECORDS, hourStart, inputsWith } from './healthy-fleet';

const QUIET = 'qwen3:8b';

/** Every node with the chat model loaded with this context. */
const loadedWith = (contextLength: number): NodeRecord[] =>
  HEALTHY_RECORDS.map((record) => ({
    ...record,
    loaded: record.loaded.map((loaded) => ({ ...loaded, contextLength })),
  }));

/** `count` chats over the day, each of `tokens` tokens in all. */
const chats = (count: number, tokens: number, model = CHAT): FleetTrace[] =>
  Array.from({ length: count }, (_, index) => ({
    startedAt: hourStart(index % 24) + index,
    nodeId: 'gpu1',
    model,
    style: 'openai-chat',
    status: 'completed',
    latencyMs: 500,
    timeToFirstTokenMs: 100,
    promptTokens: tokens - 4,
    completionTokens: 4,
    retries: 0,
  }));

const isPowerOfTwo = (value: number) => Number.isInteger(Math.log2(value));

describe('contextForUse', () => {
  it('is never below Ollama’s default context, however little is used', () => {
    expect(MIN_RECOMMENDED_CTX).toBeGreaterThanOrEqual(2048);
    expect([0, 1, 24, 64, 1000, 2730].map(contextForUse)).toEqual(Array(6).fill(MIN_RECOMMENDED_CTX));
  });

  it('gives 1.5 × the use, up to the next power of two', () => {
    expect([2731, 5461, 5462, 21_845, 21_846, 80_000].map(contextForUse)).toEqual([
      8192, 8192, 16_384, 32_768, 65_536, 131_072,
    ]);
  });

  it('is always a power of two that holds the use with its headroom', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (used) => {
        const size = contextForUse(used);
        expect(isPowerOfTwo(size)).toBe(true);
        expect(size).toBeGreaterThanOrEqual(Math.max(MIN_RECOMMENDED_CTX, 1.5 * used));
        expect(size / 2 < Math.max(MIN_RECOMMENDED_CTX, 1.5 * used)).toBe(true);
      }),
    );
  });
});

describe('context_waste', () => {
  it('gives no advice from 24 requests of 24 tokens, and says why it did not judge', () => {
    const inputs = inputsWith({ records: loadedWith(32_768), traces: chats(24, 24) });

    const findings = runChecks(inputs, CONTEXT_CHECKS);
    const check = healthReport(inputs).checks.find((entry) => entry.id === 'context_waste');

    expect(findings.filter((found) => found.check_id === 'context_waste')).toEqual([]);
    expect(check).toMatchObject({ status: 'skipped' });
    expect(check?.reason).toContain(`${MIN_SIZING_REQUESTS} requests`);
  });

  it(`sizes from ${MIN_SIZING_REQUESTS} requests on, never below the default`, () => {
    const below = runChecks(
      inputsWith({ records: loadedWith(32_768), traces: chats(MIN_SIZING_REQUESTS - 1, 24) }),
      CONTEXT_CHECKS,
    );
    const at = runChecks(
      inputsWith({ records: loadedWith(32_768), traces: chats(MIN_SIZING_REQUESTS, 24) }),
      CONTEXT_CHECKS,
    );

    expect(below).toEqual([]);
    expect(at).toEqual([
      expect.objectContaining({
        check_id: 'context_waste',
        severity: 'warning',
        fix: `Load it with num_ctx ${MIN_RECOMMENDED_CTX} (OLLAMA_CONTEXT_LENGTH on its nodes): the KV cache memory goes to other models.`,
        data: expect.objectContaining({ recommended_ctx: MIN_RECOMMENDED_CTX, requests_24h: MIN_SIZING_REQUESTS }),
      }),
    ]);
  });

  it('sizes each model from its own requests: a busy one is advised, a quiet one beside it is not', () => {
    const records = loadedWith(32_768).map((record) => ({
      ...record,
      models: [...record.models, makeNodeModel({ name: QUIET })],
      loaded: [...record.loaded, makeLoadedModel({ name: QUIET, contextLength: 32_768 })],
    }));
    const traces = [...chats(MIN_SIZING_REQUESTS, 24), ...chats(24, 24, QUIET)];

    const findings = runChecks(inputsWith({ records, traces }), CONTEXT_CHECKS);

    expect(findings.map((found) => found.data['model'])).toEqual([CHAT]);
  });

  it('advises a power of two that holds 1.5 × the largest request', () => {
    const [found] = runChecks(
      inputsWith({ records: loadedWith(131_072), traces: chats(MIN_SIZING_REQUESTS, 6000) }),
      CONTEXT_CHECKS,
    );

    expect(found?.data).toMatchObject({ max_total_tokens: 6000, recommended_ctx: 16_384 });
    expect(found?.fix).toContain('num_ctx 16384');
  });
});

describe('context_overflow', () => {
  it('reports a request larger than the context from few requests, without naming a size', () => {
    const traces = chats(24, 600).map((entry, index) => (index === 0 ? { ...entry, promptTokens: 9000 } : entry));

    const [found] = runChecks(inputsWith({ records: loadedWith(8192), traces }), CONTEXT_CHECKS);

    expect(found).toMatchObject({ check_id: 'context_overflow', data: { recommended_ctx: null, requests_24h: 24 } });
    expect(found?.fix).not.toMatch(/num_ctx \d/);
    expect(found?.fix).toContain('above 9004 tokens');
  });

  it('names the size once the model had enough requests', () => {
    const traces = chats(MIN_SIZING_REQUESTS, 600).map((entry, index) =>
      index === 0 ? { ...entry, promptTokens: 9000 } : entry,
    );

    const [found] = runChecks(inputsWith({ records: loadedWith(8192), traces }), CONTEXT_CHECKS);

    expect(found?.data).toMatchObject({ recommended_ctx: 16_384 });
    expect(found?.fix).toBe(`Load ${CHAT} with num_ctx 16384, or keep clients' prompts shorter.`);
  });
});
