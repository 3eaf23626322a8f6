/**
 * The composition root of a function instance: config → DynamoDB client → table → repositories →
 * registry, each built once per container on first use (a Lambda cold start) and reused by every
 * invocation. Only the handlers in functions/ import it: each builds its routes from these services
 * (`routes(getServices())`) and the features take what they use as parameters; a lib module importing
 * it fails the lint (biome.json). Tests build their own with the factories, or set the instance's from
 * a config of their own with `initServices`.
 */
import { randomUUID } from 'node:crypto';
import { createReadCache, type ReadCache } from './services/analytics/read-cache';
import { createRollupReader, type RollupReader } from './services/analytics/rollup-reader';
import { createTraceRecorder, type TraceRecorder } from './services/analytics/trace';
import { createTraceReader, type TraceReader } from './services/analytics/trace-reader';
import { type BenchmarkLauncher, createBenchmarkLauncher } from './services/benchmarks/benchmark-launcher';
import { type ApplyContextLayers, createContextLayers } from './services/context-layers/context-layers';
import { createFleetSummariser } from './services/context-layers/fleet-summariser';
import { createStickyClearedIds } from './services/context-layers/sticky-cleared-ids';
import { createSummaryCache } from './services/context-layers/summary-cache';
import { type AffinityTracker, createAffinityTracker } from './services/dispatch/affinity';
import { createDispatcher, type Dispatcher } from './services/dispatch/dispatcher';
import { createFleetDepths, type FleetDepths } from './services/dispatch/fleet-depths';
import { createLatencyStats, type LatencyStats } from './services/dispatch/latency-stats';
import { createOutlierEjection, type OutlierEjection } from './services/dispatch/outlier-ejection';
import { createQueueManager, type QueueManager, type QueueState } from './services/dispatch/queue-manager';
import { createQueuePublisher, type QueuePublisher } from './services/dispatch/queue-publisher';
import { createSharedSlots, type SharedSlots } from './services/dispatch/shared-slots';
import type { HandlerOptions } from './services/http/handler';
import { createModelDescriber, type DescribeModels } from './services/node-client/describe-models';
import { createShowModel, type ShowModel } from './services/node-client/show-model';
import { type FleetConfig, getConfig } from './services/platform/config';
import { onShutdown } from './services/platform/shutdown-hooks';
import { heartbeatAdmission } from './services/registry/heartbeat-admission';
import { createListedNodePolls, type ListedNodePolls } from './services/registry/poll-listed-nodes';
import { createFleetRegistry, type FleetRegistry } from './services/registry/registry';
import { createRuntimeSettings, type RuntimeSettings } from './services/settings/runtime-settings';
import { createAffinityRepository } from './services/store/affinity-repository';
import { type BenchmarkRepository, createBenchmarkRepository } from './services/store/benchmark-repository';
import { createClearedToolResultsRepository } from './services/store/cleared-tool-results-repository';
import { createDynamoClient } from './services/store/client';
import { ensureTable } from './services/store/ensure-table';
import { createNodeRepository } from './services/store/node-repository';
import {
  createQueueStateRepository,
  QUEUE_STATE_TTL_MS,
  type QueueStateRepository,
} from './services/store/queue-state-repository';
import { createSettingsRepository } from './services/store/settings-repository';
import { openTable, type Table } from './services/store/table';
import { createToolResultSummaryRepository } from './services/store/tool-result-summary-repository';
import { createWriteBehind, type WriteBehind } from './services/store/write-behind';

export interface Services {
  readonly queueStates: QueueStateRepository;
  /**
   * Every instance's queues, for the status views: this instance's exact and current, the others' as
   * they last published them through the table.
   */
  queueView(now: number): Promise<QueueState[]>;
  readonly config: FleetConfig;
  readonly table: Table;
  readonly registry: FleetRegistry;
  readonly describe: DescribeModels;
  /** The listed nodes' polls under way in this container (the scheduled poller's). */
  readonly polls: ListedNodePolls;
  readonly writeBehind: WriteBehind;
  readonly traces: TraceRecorder;
  /** The analytics rollups every instance writes behind with its traces, read for the operator API. */
  readonly rollups: RollupReader;
  /** Recent traces, newest first, read by key (the operator API's traces view). */
  readonly traceReader: TraceReader;
  /** Analytics views read within the last two seconds, per distinct query: a polling page costs little. */
  readonly analyticsCache: ReadCache;
  readonly showModel: ShowModel;
  readonly routing: RoutingState;
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

/** What the dispatcher needs that outlives a request: queues, latency observations, affinity pins. */
export interface RoutingState {
  readonly queues: QueueManager;
  /** This instance's queue depths plus the other instances' published ones: what the scorer reads. */
  readonly depths: FleetDepths;
  readonly latency: LatencyStats;
  readonly affinity: AffinityTracker;
  /** Nodes out of routing for failing: this instance's own view, in memory (./routing/outlier-ejection). */
  readonly ejection: OutlierEjection;
}

let services: Services | undefined;

/** This container's id among the router's instances. */
const INSTANCE_ID = randomUUID();

/** The Lambda function this container runs as; undefined outside AWS (the emulator, tests). */
const LAMBDA_FUNCTION_NAME = process.env['AWS_LAMBDA_FUNCTION_NAME'];

export function getServices(): Services {
  return services ?? initServices(getConfig());
}

/**
 * Builds this instance's services from `config` and makes them the ones `getServices` returns: what the
 * first request does with the environment's config, and what in-process handler tests do with their own
 * (`loadConfig({...})`) instead of mutating `process.env`.
 */
export function initServices(config: FleetConfig): Services {
  const client = createDynamoClient({ dynamodbEndpoint: config.dynamodbEndpoint });
  // Every table call has a short deadline; a table that vanished is created again, not failed on forever.
  const table = openTable(client, config.table, {
    timeoutMs: config.tableTimeoutMs,
    recreate: () => ensureTable(client, config.table),
  });
  const describe = createModelDescriber();
  const registry = createFleetRegistry({
    store: createNodeRepository(table),
    config,
    describe,
    admission: heartbeatAdmission(config),
  });
  const writeBehind = createWriteBehind(table);
  onShutdown(() => writeBehind.close());
  // Every change of a depth publishes (throttled): a slot freed by any path shows in every instance's
  // views; one another instance may be waiting for goes out at once (./services/dispatch/queue-publisher).
  let publisher: QueuePublisher | undefined;
  let slots: SharedSlots | undefined;
  const queues = createQueueManager({
    maxPending: config.queueMaxPending,
    timeoutMs: config.queueTimeoutMs,
    onChange: (queue) => publisher?.changed(queue),
    onCreate: (queue) => slots?.prepare(queue),
    onWait: (queue) => slots?.reconsider(queue),
    onIdle: (queue) => slots?.idle(queue),
  });
  const queueStates = createQueueStateRepository(table, writeBehind);
  publisher = createQueuePublisher({
    instanceId: INSTANCE_ID,
    queues,
    states: queueStates,
    closed: () => writeBehind.isClosed(),
    peersLive: () => slots?.hasPeers() === true,
    flush: () => writeBehind.flush(),
  });
  const announce = publisher.announce;
  // One read of every instance's publication feeds the scorer's depths and this instance's shares.
  const depths = createFleetDepths(queues, {
    loadOthers: async () => {
      const readAt = Date.now();
      const instances = await queueStates.instances(readAt).catch((error: unknown) => {
        slots?.readFailed(readAt);
        throw error;
      });
      slots?.update(instances, readAt);
      return instances.flatMap((published) => (published.instanceId === INSTANCE_ID ? [] : published.entries));
    },
    maxAgeMs: QUEUE_STATE_TTL_MS,
  });
  slots = createSharedSlots({
    instanceId: INSTANCE_ID,
    queues,
    refresh: () => depths.refresh(),
    announce,
    closed: () => writeBehind.isClosed(),
    maxAgeMs: QUEUE_STATE_TTL_MS,
  });
  const routing: RoutingState = {
    queues,
    depths,
    latency: createLatencyStats(),
    affinity: createAffinityTracker({ store: createAffinityRepository(table, writeBehind) }),
    ejection: createOutlierEjection(config.ejection),
  };
  const dispatcher = createDispatcher({
    // The snapshot at hand when the process is warm: no promise on the routing path.
    snapshot: () => registry.ready() ?? registry.snapshot(),
    ...routing,
    maxRetries: config.maxRetries,
    concurrencyOverrides: config.nodeConcurrency,
  });
  const traces = createTraceRecorder(writeBehind, { instanceId: INSTANCE_ID });
  services = {
    config,
    table,
    registry,
    describe,
    polls: createListedNodePolls({ registry, describe }),
    writeBehind,
    traces,
    rollups: createRollupReader(table),
    traceReader: createTraceReader(table),
    analyticsCache: createReadCache(),
    showModel: createShowModel(),
    queueStates,
    queueView: async (now) => [
      ...queues.entries(),
      // The status views still answer while the table is down: with this instance's queues only.
      ...(await queueStates.live(now, { exceptInstanceId: INSTANCE_ID }).catch(() => [])),
    ],
    routing,
    dispatcher,
    settings: createRuntimeSettings({
      store: createSettingsRepository(table),
      defaults: { imageGeneration: config.imageGeneration, transcription: config.transcription },
    }),
    benchmarks: createBenchmarkRepository(table),
    benchmarkLauncher: createBenchmarkLauncher({ functionName: LAMBDA_FUNCTION_NAME }),
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

/** In AWS a container is frozen between invocations, so written-behind items go out before one ends. */
const inLambda = LAMBDA_FUNCTION_NAME !== undefined;

/**
 * What every HTTP handler is wrapped with: the client and node keys it accepts (from the same config
 * as the services, so the registry's heartbeat rules and the wrapper's key check agree), the origins
 * browsers may call from (CORS), the end-of-invocation flush.
 */
export function handlerOptions(): HandlerOptions {
  const flush = async () => {
    if (services !== undefined) await services.writeBehind.flush();
  };
  const config = services?.config ?? getConfig();
  return {
    apiKeys: config.apiKeys,
    nodeKeys: config.nodeKeys,
    corsOrigins: config.corsOrigins,
    ...(inLambda ? { afterResponse: flush } : {}),
  };
}
