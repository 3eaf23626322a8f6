/**
 * The DynamoDB client (ARCHITECTURE.md §3.4: the real SDK everywhere). With an endpoint it talks to the
 * local stand-in (dynalite) with dummy credentials; without one it uses the default AWS chain, as a
 * Lambda does. One client per endpoint is cached for the life of the process, because a warm Lambda
 * container reuses it and its keep-alive sockets across invocations.
 */
import type { DynamoDBClient, DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { dynamoSdk } from './sdk';

export interface DynamoClientConfig {
  /** Unset: the real service, found through the default AWS region and credential chain. */
  readonly dynamodbEndpoint: string | undefined;
  readonly region?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The stand-in checks signatures only for shape, so any static pair works. */
const LOCAL_CREDENTIALS = { accessKeyId: 'fleet-router-local', secretAccessKey: 'fleet-router-local' };

/** Node I/O is bounded (ARCHITECTURE.md §3.7): a stuck connection must not hold a flush forever. */
function requestHandler(local: boolean): NonNullable<DynamoDBClientConfig['requestHandler']> {
  const agent = { keepAlive: true, maxSockets: 64 };
  return {
    connectionTimeout: local ? 1000 : 2000,
    requestTimeout: 10_000,
    throwOnRequestTimeout: true,
    httpAgent: agent,
    httpsAgent: agent,
  };
}

function present(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function clientConfig(config: DynamoClientConfig, env: Env): DynamoDBClientConfig {
  const endpoint = config.dynamodbEndpoint;
  if (endpoint === undefined) {
    // The SDK retries throttling and 5xx itself; 3 attempts keep a Lambda from spending its timeout here.
    return {
      maxAttempts: 3,
      requestHandler: requestHandler(false),
      ...(present(config.region) ? { region: config.region } : {}),
    };
  }
  const { AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY } = env;
  const region = present(config.region) ? config.region : present(AWS_REGION) ? AWS_REGION : 'us-east-1';
  const realCredentials = present(AWS_ACCESS_KEY_ID) && present(AWS_SECRET_ACCESS_KEY);
  return {
    endpoint,
    region,
    // Locally a refused connection means the stand-in is down: fail fast, the write-behind retries later.
    maxAttempts: 2,
    requestHandler: requestHandler(true),
    ...(realCredentials ? {} : { credentials: LOCAL_CREDENTIALS }),
  };
}

const clients = new Map<string, DynamoDBClient>();

/** The process's client for this endpoint and region, created on first use. */
export function createDynamoClient(config: DynamoClientConfig, env: Env = process.env): DynamoDBClient {
  const cacheKey = `${config.dynamodbEndpoint ?? 'aws'}|${config.region ?? ''}`;
  let client = clients.get(cacheKey);
  if (client === undefined) {
    client = new (dynamoSdk().DynamoDBClient)(clientConfig(config, env));
    clients.set(cacheKey, client);
  }
  return client;
}

/** Closes every cached client's sockets (emulator shutdown, end of a test file). */
export function destroyDynamoClients(): void {
  for (const client of clients.values()) client.destroy();
  clients.clear();
}
