import { describe, expect, it } from '@jest/globals';
import type { ModelPlacement } from '../../../../lib/core/fleet/node';
import { attemptContext, contextHeaders, withPlannedContext } from '../../../../lib/features/chat/attempt-context';
import { makeLoadedModel, makeNodeModel, makeNodeRecord, makeRequest } from '../../../helpers/factories';

function placement(loadedContext: number | undefined, modelMax = 131_072): ModelPlacement {
  const loaded = loadedContext === undefined ? undefined : makeLoadedModel({ contextLength: loadedContext });
  return {
    node: { ...makeNodeRecord(), status: 'online' },
    kind: 'llm',
    backend: 'ollama',
    model: makeNodeModel({ contextLength: modelMax }),
    ...(loaded !== undefined ? { loaded } : {}),
  };
}

const routing = makeRequest({ promptTokens: 26_000 });

describe('attemptContext', () => {
  it('sets num_ctx on a body whose loaded context is too small, keeping the other options', () => {
    const body = { model: 'llama3.2:3b', options: { num_predict: 1024, temperature: 0.2 } };
    const plan = attemptContext(routing, body, placement(4096));

    expect(withPlannedContext(body, plan)).toEqual({
      model: 'llama3.2:3b',
      options: { num_predict: 1024, temperature: 0.2, num_ctx: 32_768 },
    });
    expect(body.options).toEqual({ num_predict: 1024, temperature: 0.2 });
    expect(contextHeaders(routing, plan)).toEqual({ 'x-fleet-context': 'num_ctx=32768 (loaded 4096)' });
  });

  it('sends the body as it is when the loaded context fits', () => {
    const body = { model: 'llama3.2:3b', options: { num_predict: 1024 } };
    const plan = attemptContext(routing, body, placement(32_768));

    expect(withPlannedContext(body, plan)).toBe(body);
    expect(contextHeaders(routing, plan)).toEqual({ 'x-fleet-context': 'fits' });
  });

  it("keeps the client's num_ctx and reports the overflow it leaves", () => {
    const body = { model: 'llama3.2:3b', options: { num_ctx: 8192 } };
    const plan = attemptContext(routing, body, placement(4096));

    expect(withPlannedContext(body, plan)).toBe(body);
    expect(contextHeaders(routing, plan)).toEqual({
      'x-fleet-context': 'client num_ctx=8192',
      'x-fleet-context-overflow': 'estimated_tokens=26000; context_length=8192',
    });
  });

  it('reports an overflow only when even the model maximum is too small', () => {
    const plan = attemptContext(routing, { model: 'x' }, placement(4096, 16_384));

    expect(plan?.numCtx).toBe(16_384);
    expect(contextHeaders(routing, plan)['x-fleet-context-overflow']).toBe(
      'estimated_tokens=26000; context_length=16384',
    );
  });

  it('plans nothing for work that is not a chat', () => {
    const image = makeRequest({ kind: 'image', promptTokens: 26_000 });
    expect(attemptContext(image, { model: 'x' }, placement(4096))).toBeUndefined();
    expect(contextHeaders(image, undefined)).toEqual({});
  });
});
