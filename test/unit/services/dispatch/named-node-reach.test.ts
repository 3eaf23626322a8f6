/**
 * The exchange reached through a named node (`exchange(namedNode, …)`), in process with scripted node
 * replies and a recording trace recorder: the work chooses, holds and sends in that order; the hold is
 * given back on every way out once it was taken; the reply is cancelled once settled; and the request
 * leaves exactly one trace, naming the node and the model once one was chosen, with the client's error
 * words only and none of a routed request's score fields.
 */
import { describe, expect, it } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { ConflictError, NotFoundError, UpstreamError } from '../../../../lib/core/errors';
import type { NodeView } from '../../../../lib/core/fleet/node';
import { type NamedNodeInput, namedNode } from '../../../../lib/services/dispatch/named-node-reach';
import { type ExchangeEnd, exchange } from '../../../../lib/services/dispatch/routed-exchange';
import { toHttpRequest } from '../../../../lib/services/http/request';
import type { NodeReply } from '../../../../lib/services/node-client/node-reply';
import { makeHttpEvent } from '../../../helpers/events';
import { agentNode, viewOf } from '../../../helpers/factories';

const NODE: NodeView = viewOf(agentNode({ id: 'gpu1', url: 'http://127.0.0.1:1' }));
const MODEL = 'llama3:8b';

interface Run {
  readonly traces: Trace[];
  /** What happened, in order: `choose`, `hold`, `send`, `release`, `cancel`, `trace`. */
  readonly steps: string[];
  readonly input: NamedNodeInput;
  readonly deps: { readonly traces: { record(trace: Trace): void } };
  readonly controller: AbortController;
}

function scriptedReply(steps: string[], status = 200): NodeReply {
  return {
    status,
    headers: {},
    body: (async function* () {})(),
    cancel: () => {
      steps.push('cancel');
    },
  };
}

/** A run whose steps succeed unless `fail` names the one that throws, and with what. */
function run(fail: Partial<Record<'choose' | 'hold' | 'send', Error>> = {}): Run {
  const traces: Trace[] = [];
  const steps: string[] = [];
  const controller = new AbortController();
  const request = toHttpRequest(makeHttpEvent({ method: 'POST', path: '/api/pull', body: {} }));
  const input: NamedNodeInput = {
    signal: controller.signal,
    traced: { request, style: 'pull', requestedModel: MODEL, tags: ['team:ml'] },
    model: MODEL,
    choose: () => {
      steps.push('choose');
      if (fail.choose !== undefined) throw fail.choose;
      return NODE;
    },
    hold: async () => {
      steps.push('hold');
      if (fail.hold !== undefined) throw fail.hold;
      return {
        release: async () => {
          steps.push('release');
        },
      };
    },
    send: async () => {
      steps.push('send');
      if (fail.send !== undefined) throw fail.send;
      return scriptedReply(steps);
    },
  };
  const deps = {
    traces: {
      record: (trace: Trace) => {
        steps.push('trace');
        traces.push(trace);
      },
    },
  };
  return { traces, steps, input, deps, controller };
}

const completed = async (): Promise<ExchangeEnd<string>> => ({ status: 'completed', value: 'pulled' });

/** A routed request's trace fields, which a pull's trace never has. */
const ROUTED_ONLY = ['score', 'scoreBreakdown', 'fallbackModel', 'skipped'] as const;

describe('exchange through a named node', () => {
  it('chooses, holds, sends, settles, gives the hold back and traces once, completed, naming the node', async () => {
    const { traces, steps, input, deps } = run();

    const value = await exchange(namedNode, deps, input, completed);

    expect(value).toBe('pulled');
    expect(steps).toEqual(['choose', 'hold', 'send', 'cancel', 'release', 'trace']);
    expect(traces).toEqual([
      expect.objectContaining({
        style: 'pull',
        status: 'completed',
        requestedModel: MODEL,
        nodeId: 'gpu1',
        servedModel: MODEL,
        retries: 0,
        tags: ['team:ml'],
      }),
    ]);
    for (const field of ROUTED_ONLY) expect(traces[0]).not.toHaveProperty(field);
    expect(traces[0]).not.toHaveProperty('error');
  });

  it('traces what the caller says about an end it did not throw: an in-band failure after the first byte', async () => {
    const { traces, steps, input, deps } = run();

    await exchange(namedNode, deps, input, async () => ({
      status: 'incomplete',
      value: undefined,
      fields: { error: 'the pull broke off' },
    }));

    expect(steps).toEqual(['choose', 'hold', 'send', 'cancel', 'release', 'trace']);
    expect(traces).toEqual([
      expect.objectContaining({
        status: 'incomplete',
        nodeId: 'gpu1',
        servedModel: MODEL,
        error: 'the pull broke off',
      }),
    ]);
  });

  it('traces a refusal before any node is chosen once, failed, with no node, and takes no hold', async () => {
    const { traces, steps, input, deps } = run({ choose: new NotFoundError("node 'nope' not found") });

    await expect(exchange(namedNode, deps, input, completed)).rejects.toMatchObject({ status: 404 });

    expect(steps).toEqual(['choose', 'trace']);
    expect(traces).toEqual([expect.objectContaining({ status: 'failed', error: "node 'nope' not found" })]);
    expect(traces[0]).not.toHaveProperty('nodeId');
    expect(traces[0]).not.toHaveProperty('servedModel');
  });

  it('traces a hold it cannot have once, failed, naming the node, and never sends', async () => {
    const { traces, steps, input, deps } = run({ hold: new ConflictError(`model '${MODEL}' is already being pulled`) });

    await expect(exchange(namedNode, deps, input, completed)).rejects.toMatchObject({ status: 409 });

    expect(steps).toEqual(['choose', 'hold', 'trace']);
    expect(traces).toEqual([
      expect.objectContaining({
        status: 'failed',
        nodeId: 'gpu1',
        servedModel: MODEL,
        error: `model '${MODEL}' is already being pulled`,
      }),
    ]);
  });

  it('gives the hold back when the node cannot be reached, then traces the client-facing words only', async () => {
    const unreachable = new UpstreamError("node 'gpu1' is unreachable", undefined, { detail: 'ECONNREFUSED' });
    const { traces, steps, input, deps } = run({ send: unreachable });

    await expect(exchange(namedNode, deps, input, completed)).rejects.toBe(unreachable);

    expect(steps).toEqual(['choose', 'hold', 'send', 'release', 'trace']);
    expect(traces).toEqual([
      expect.objectContaining({
        status: 'failed',
        nodeId: 'gpu1',
        servedModel: MODEL,
        error: "node 'gpu1' is unreachable",
      }),
    ]);
  });

  it('gives the hold back when settling throws, traces that failure once and rethrows it without X-Fleet-* headers', async () => {
    const refused = new UpstreamError("node 'gpu1' failed the pull (HTTP 500)", 500, { detail: 'node output' });
    const { traces, steps, input, deps } = run();

    const call = exchange(namedNode, deps, input, async () => {
      throw refused;
    });

    await expect(call).rejects.toBe(refused);
    expect(refused.headers).toEqual({});
    expect(steps).toEqual(['choose', 'hold', 'send', 'cancel', 'release', 'trace']);
    expect(traces).toEqual([
      expect.objectContaining({
        status: 'failed',
        nodeId: 'gpu1',
        servedModel: MODEL,
        error: "node 'gpu1' failed the pull (HTTP 500)",
      }),
    ]);
    for (const field of ROUTED_ONLY) expect(traces[0]).not.toHaveProperty(field);
  });

  it('traces a settle that fails after the client left as client_disconnected', async () => {
    const { traces, steps, input, deps, controller } = run();

    const call = exchange(namedNode, deps, input, async () => {
      controller.abort();
      throw new UpstreamError('the pull on node gpu1 broke off');
    });

    await expect(call).rejects.toMatchObject({ status: 502 });
    expect(steps).toEqual(['choose', 'hold', 'send', 'cancel', 'release', 'trace']);
    expect(traces).toEqual([expect.objectContaining({ status: 'client_disconnected', nodeId: 'gpu1' })]);
  });
});
