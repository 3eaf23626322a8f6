/**
 * The composition root of a function instance: config → DynamoDB client → table → repositories →
 * registry, each built once per container on first use (a Lambda cold start) and reused by every
 * invocation. Handlers ask for what they need here; tests build their own with the factories.
 */
import { createTraceRecorder, type TraceRecorder } from './analytics/trace';
import { type FleetConfig, getConfig } from './config';
import { createModelDescriber, type DescribeModels } from './fleet/describe-models';
import { createFleetRegistry, type FleetRegistry } from './fleet/registry';
import { createShowModel, type ShowModel } from './fleet/show-model';
import type { HandlerOptions } from './http/handler';
import { type AffinityTracker, createAffinityTracker } from './routing/affinity';
import { createLatencyStats, type LatencyStats } from './routing/latency-stats';
import { createQueueManager, type QueueManager } from './routing/queue-manager';
import { onShutdown } from './shutdown-hooks';
import { createAffinityRepository } from './store/affinity-repository';
import { createDynamoClient } from './store/client';
import { createNodeRepository } from './store/node-repository';
import { openTable, type Table } from './store/table';
import { createWriteBehind, type WriteBehind } from './store/write-behind';

export interface Services {
  readonly config: FleetConfig;
  readonly table: Table;
  readonly registry: FleetRegistry;
  readonly describe: DescribeModels;
  readonly writeBehind: WriteBehind;
  readonly traces: TraceRecorder;
  readonly showModel: ShowModel;
  readonly routing: RoutingState;
}

/** What the dispatcher needs that outlives a request: queues, latency observations, affinity pins. */
export interface RoutingState {
  readonly queues: QueueManager;
  readonly latency: LatencyStats;
  readonly affinity: AffinityTracker;
}

let services: Services | undefined;

export function getServices(): Services {
  if (services !== undefined) return services;
  const config = getConfig();
  const table = openTable(createDynamoClient({ dynamodbEndpoint: config.dynamodbEndpoint }), config.table);
  const describe = createModelDescriber();
  const registry = createFleetRegistry({ store: createNodeRepository(table), config, describe });
  const writeBehind = createWriteBehind(table);
  onShutdown(() => writeBehind.close());
  services = {
    config,
    table,
    registry,
    describe,
    writeBehind,
    traces: createTraceRecorder(writeBehind),
    showModel: createShowModel(),
    routing: {
      queues: createQueueManager(),
      latency: createLatencyStats(),
      affinity: createAffinityTracker({ store: createAffinityRepository(table, writeBehind) }),
    },
  };
  return services;
}

/** In AWS a container is frozen between invocations, so written-behind items go out before one ends. */
const inLambda = process.env['AWS_LAMBDA_FUNCTION_NAME'] !== undefined;

/** What every HTTP handler is wrapped with: the API keys it accepts, the end-of-invocation flush. */
export function handlerOptions(): HandlerOptions {
  const flush = async () => {
    if (services !== undefined) await services.writeBehind.flush();
  };
  return { apiKeys: getConfig().apiKeys, ...(inLambda ? { afterResponse: flush } : {}) };
}
