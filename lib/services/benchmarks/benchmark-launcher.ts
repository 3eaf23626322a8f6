/**
 * How a benchmark run outlives the request that started it (issue 22 item 6). In AWS
 * (`AWS_LAMBDA_FUNCTION_NAME` set) a Lambda container may be frozen once its response is sent, so the run
 * is an invocation of its own: the dashboard function invokes itself asynchronously
 * (`InvocationType: 'Event'`) with `{"fleetBenchmark": {"runId"}}`, and that invocation runs the benchmark
 * to completion (./benchmark-invocation). serverless-offline sets that name too, and its functions' Lambda
 * client is pointed at its local Lambda API (serverless/offline-setup.js), so there it is an invocation as
 * well. Everywhere else (the emulator, a plain Node host) the same run goes on in the background of this
 * process. The Lambda client is loaded on the
 * first launch, never at cold start. The function's role needs `lambda:InvokeFunction` on itself.
 */

/** The event a self-invocation carries. */
export interface BenchmarkInvocationEvent {
  readonly fleetBenchmark: { readonly runId: string };
}

export interface BenchmarkLauncher {
  /** Starts `runId`'s run: here (`runHere`, in the background) or in an invocation of its own. */
  launch(runId: string, runHere: () => Promise<void>): Promise<void>;
  /** Resolves once no run launched in this process is under way (tests, shutdown). */
  idle(): Promise<void>;
}

/** Invokes `functionName` asynchronously with `payload` (JSON); rejects when Lambda refused. */
export type InvokeAsync = (functionName: string, payload: string) => Promise<void>;

export interface BenchmarkLauncherOptions {
  /** `AWS_LAMBDA_FUNCTION_NAME`: set, runs are invocations of this function; absent, they run here. */
  readonly functionName?: string | undefined;
  /** The asynchronous invoke (tests pass a fake); the AWS SDK's by default. */
  readonly invoke?: InvokeAsync;
  readonly log?: (line: string) => void;
}

export function createBenchmarkLauncher(options: BenchmarkLauncherOptions = {}): BenchmarkLauncher {
  const { functionName } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const running = new Set<Promise<void>>();
  return {
    async launch(runId, runHere) {
      if (functionName !== undefined) {
        const event: BenchmarkInvocationEvent = { fleetBenchmark: { runId } };
        await (options.invoke ?? sdkInvoke)(functionName, JSON.stringify(event));
        return;
      }
      const run = runHere()
        .catch((error: unknown) => log(`benchmark ${runId} failed: ${error instanceof Error ? error.message : error}`))
        .finally(() => running.delete(run));
      running.add(run);
    },
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}

type LambdaSdk = typeof import('@aws-sdk/client-lambda');
let lambda: { sdk: LambdaSdk; client: InstanceType<LambdaSdk['LambdaClient']> } | undefined;

/** The SDK's asynchronous invoke, its client built on first use. */
const sdkInvoke: InvokeAsync = async (functionName, payload) => {
  if (lambda === undefined) {
    const sdk = require('@aws-sdk/client-lambda') as LambdaSdk;
    lambda = { sdk, client: new sdk.LambdaClient({}) };
  }
  const { sdk, client } = lambda;
  const answer = await client.send(
    new sdk.InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: Buffer.from(payload) }),
  );
  if (answer.StatusCode !== 202) throw new Error(`Lambda answered ${answer.StatusCode} to the benchmark's invoke`);
};
