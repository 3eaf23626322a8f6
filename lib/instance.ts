/**
 * The composition root of a function instance: the fleet services (./fleet-instance: config → DynamoDB
 * client → table → registry, write-behind, routing state) and, on them, the dispatcher, traces,
 * analytics readers, context layers and benchmarks, each built once per container on first use (a Lambda
 * cold start) and reused by every invocation. Only the handlers in functions/ import it: each builds its
 * routes from these services (`routes(getServices())`) and the features take what they use as
 * parameters; a lib module importing it fails the lint (biome.json). Tests build their own with the
 * factories, or set the instance's from a config of their own with `initServices`. The `fleet` and
 * `poller` functions use ./fleet-instance alone, so their bundles leave all of this out.
 */
// biome-ignore lint/style/noRestrictedImports: the composition root's own fleet half
import * as fleetInstance from './fleet-instance';
import { createReadCache, type ReadCache } from './services/analytics/read-cache';
import { createRollupReader, type RollupReader } from './services/analytics/rollup-reader';
import { createTraceRecorder, type TraceRecorder, withSpans } from './services/analytics/trace';
import { createTraceReader, type TraceReader } from './services/analytics/trace-reader';
import { type BenchmarkLauncher, createBenchmarkLauncher } from './services/benchmarks/benchmark-launcher';
import { type ApplyContextLayers, createContextLayers } from './services/context-layers/context-layers';
import { createFleetSummariser } from './services/context-layers/fleet-summariser';
import { createStickyClearedIds } from './services/context-layers/sticky-cleared-ids';
import { createSummaryCache } from './services/context-layers/summary-cache';
import { createDispatcher, type Dispatcher } from './services/dispatch/dispatcher';
import type { HandlerOptions } from './services/http/handler';
import { createShowModel, type ShowModel } from './services/node-client/show-model';
import type { FleetConfig } from './services/platform/config';
import { onShutdown } from './services/platform/shutdown-hooks';
import { createRuntimeSettings, type RuntimeSettings } from './services/settings/runtime-settings';
import { type BenchmarkRepository, createBenchmarkRepository } from './services/store/benchmark-repository';
import { createClearedToolResultsRepository } from './services/store/cleared-tool-results-repository';
import { createSettingsRepository } from './services/store/settings-repository';
import { createToolResultSummaryRepository } from './services/store/tool-result-summary-repository';
import { createSpanExport, type SpanExport } from './services/telemetry/span-export';

type FleetServices = fleetInstance.FleetServices;
export type RoutingState = fleetInstance.RoutingState;

/**
 * The fleet half's handler options; where spans are exported, the end-of-invocation flush (in AWS) sends
 * the queued spans with the written-behind items.
 */
export function handlerOptions(): HandlerOptions {
  const options = fleetInstance.handlerOptions();
  const flushWrites = options.afterResponse;
  const spans = services?.spans;
  if (flushWrites === undefined || spans === undefined) return options;
  return {
    ...options,
    afterResponse: async () => {
      await Promise.all([flushWrites(), spans.flush()]);
    },
  };
}

export interface Services extends FleetServices {
  /** Every routed request's trace: written behind to the table and, where configured, exported as a span. */
  readonly traces: TraceRecorder;
  /** The OTLP span export, where `OTEL_EXPORTER_OTLP_ENDPOINT` is set (./services/telemetry/span-export). */
  readonly spans: SpanExport | undefined;
  /** The analytics rollups every instance writes behind with its traces, read for the operator API. */
  readonly rollups: RollupReader;
  /** Recent traces, newest first, read by key (the operator API's traces view). */
  readonly traceReader: TraceReader;
  /** Analytics views read within the last two seconds, per distinct query: a polling page costs little. */
  readonly analyticsCache: ReadCache;
  readonly showModel: ShowModel;
  /** The instance's one dispatcher over `routing`: every routed request and the summariser go through it. */
  readonly dispatcher: Dispatcher;
  /** Image generation and speech-to-text on or off: the environment's default, or an operator's choice. */
  readonly settings: RuntimeSettings;
  /** The context layers of `/v1/messages` and `/v1/responses` (clearing, summarising, the cap). */
  readonly contextLayers: ApplyContextLayers;
  /** Benchmark runs, their lock, progress and cancels, shared by every instance through the table. */
  readonly benchmarks: BenchmarkRepository;
  /** Starts a benchmark run in the background here, or as an invocation of its own in AWS. */
  readonly benchmarkLauncher: BenchmarkLauncher;
}

let services: Services | undefined;

/** The instance's services, on the fleet services already built if a fleet-only route came first. */
export function getServices(): Services {
  return services ?? buildServices(fleetInstance.getFleetServices());
}

/**
 * Builds this instance's services from `config` and makes them the ones `getServices` returns (the fleet
 * services too): what in-process handler tests do with their own config (`loadConfig({...})`) instead of
 * mutating `process.env`.
 */
export function initServices(config: FleetConfig): Services {
  return buildServices(fleetInstance.initFleetServices(config));
}

function buildServices(fleet: FleetServices): Services {
  const { config, table, registry, writeBehind, routing, ticker } = fleet;
  const dispatcher = createDispatcher({
    // The snapshot at hand when the process is warm: no promise on the routing path.
    snapshot: () => registry.ready() ?? registry.snapshot(),
    ...routing,
    maxRetries: config.maxRetries,
    concurrencyOverrides: config.nodeConcurrency,
  });
  const recorder = createTraceRecorder(writeBehind, { instanceId: fleetInstance.INSTANCE_ID });
  const spans =
    config.otel === undefined ? undefined : createSpanExport(config.otel, { instanceId: fleetInstance.INSTANCE_ID });
  if (spans !== undefined) onShutdown(spans.flush);
  const traces = spans === undefined ? recorder : withSpans(recorder, spans);
  const settings = createRuntimeSettings({
    store: createSettingsRepository(table),
    defaults: { imageGeneration: config.imageGeneration, transcription: config.transcription },
    awake: ticker.awake,
    waitMs: config.snapshotWaitMs,
  });
  // These functions route: from here on, what routing reads is kept fresh in the background (§3.5).
  ticker.onTick(settings.readAhead);
  ticker.start();
  services = {
    ...fleet,
    traces,
    spans,
    rollups: createRollupReader(table),
    traceReader: createTraceReader(table),
    analyticsCache: createReadCache(),
    showModel: createShowModel(),
    dispatcher,
    settings,
    benchmarks: createBenchmarkRepository(table),
    benchmarkLauncher: createBenchmarkLauncher({ functionName: fleetInstance.LAMBDA_FUNCTION_NAME }),
    contextLayers: createContextLayers({
      settings: config.context,
      clearedIds: createStickyClearedIds({ store: createClearedToolResultsRepository(table, writeBehind) }),
      compaction: {
        summaries: createSummaryCache({ store: createToolResultSummaryRepository(table, writeBehind) }),
        summarise: createFleetSummariser({
          snapshot: () => registry.snapshot(),
          exchange: { dispatcher, traces },
          model: config.context.compactionModel,
          firstByteTimeoutMs: config.firstByteTimeoutMs,
        }),
      },
    }),
  };
  return services;
}
