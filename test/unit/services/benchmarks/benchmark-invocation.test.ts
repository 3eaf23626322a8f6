import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import {
  benchmarkInvocationRunId,
  withBenchmarkInvocations,
} from '../../../../lib/services/benchmarks/benchmark-invocation';
import { createBenchmarkLauncher } from '../../../../lib/services/benchmarks/benchmark-launcher';

const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');

describe('withBenchmarkInvocations', () => {
  it("runs a benchmark event's run and ends the response stream, passing any other event to the handler", async () => {
    const ran: string[] = [];
    const served: unknown[] = [];
    const http = async (event: unknown, _stream: Writable) => {
      served.push(event);
    };
    const handler = withBenchmarkInvocations(http, async (runId) => {
      ran.push(runId);
    });
    const stream = new Writable({ write: (_chunk, _encoding, next) => next() });

    await handler({ fleetBenchmark: { runId: 'bench-1' } }, stream);
    await handler({ httpMethod: 'GET' }, new Writable());

    expect(ran).toEqual(['bench-1']);
    expect(served).toEqual([{ httpMethod: 'GET' }]);
    expect(stream.writableEnded).toBe(true);
  });

  it("keeps streamifyResponse's mark, so AWS still streams the HTTP responses", () => {
    const http = Object.assign(async (_event: unknown) => undefined, { [STREAMING]: 'response' });

    const handler = withBenchmarkInvocations(http, async () => {});

    expect((handler as unknown as Record<symbol, unknown>)[STREAMING]).toBe('response');
  });

  it.each([[null], [{}], [{ fleetBenchmark: {} }], [{ fleetBenchmark: { runId: 7 } }]])(
    'takes %j for an HTTP event',
    (event) => {
      expect(benchmarkInvocationRunId(event)).toBeUndefined();
    },
  );
});

describe('createBenchmarkLauncher', () => {
  it('runs here, in the background, without a function name', async () => {
    const launcher = createBenchmarkLauncher();
    let finished = false;

    await launcher.launch('bench-1', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      finished = true;
    });
    const whenLaunched = finished;
    await launcher.idle();

    expect([whenLaunched, finished]).toEqual([false, true]);
  });

  it('invokes the function asynchronously with the run, in AWS', async () => {
    const invoked: [string, string][] = [];
    const launcher = createBenchmarkLauncher({
      functionName: 'router-dashboard',
      invoke: async (name, payload) => {
        invoked.push([name, payload]);
      },
    });

    await launcher.launch('bench-2', () => Promise.reject(new Error('never runs here')));

    expect(invoked).toEqual([['router-dashboard', '{"fleetBenchmark":{"runId":"bench-2"}}']]);
  });
});
