/**
 * The composition root of a function instance: config → DynamoDB client → table → repositories →
 * registry, each built once per container on first use (a Lambda cold start) and reused by every
 * invocation. Handlers ask for what they need here; tests build their own with the factories.
 */
import { type FleetConfig, getConfig } from './config';
import { createModelDescriber, type DescribeModels } from './fleet/describe-models';
import { createFleetRegistry, type FleetRegistry } from './fleet/registry';
import type { HandlerOptions } from './http/handler';
import { createDynamoClient } from './store/client';
import { createNodeRepository } from './store/node-repository';
import { openTable, type Table } from './store/table';

export interface Services {
  readonly config: FleetConfig;
  readonly table: Table;
  readonly registry: FleetRegistry;
  readonly describe: DescribeModels;
}

let services: Services | undefined;

export function getServices(): Services {
  if (services !== undefined) return services;
  const config = getConfig();
  const table = openTable(createDynamoClient({ dynamodbEndpoint: config.dynamodbEndpoint }), config.table);
  const describe = createModelDescriber();
  const registry = createFleetRegistry({ store: createNodeRepository(table), config, describe });
  services = { config, table, registry, describe };
  return services;
}

/** What every HTTP handler is wrapped with: the API keys it accepts. Read at cold start. */
export function handlerOptions(): HandlerOptions {
  return { apiKeys: getConfig().apiKeys };
}
