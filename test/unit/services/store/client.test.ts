import { afterAll, describe, expect, it } from '@jest/globals';
import { createDynamoClient, destroyDynamoClients } from '../../../../lib/services/store/client';

describe('createDynamoClient', () => {
  afterAll(() => {
    destroyDynamoClients();
  });

  it('reuses one client per endpoint', () => {
    const first = createDynamoClient({ dynamodbEndpoint: 'http://127.0.0.1:1' }, {});
    const again = createDynamoClient({ dynamodbEndpoint: 'http://127.0.0.1:1' }, {});
    const other = createDynamoClient({ dynamodbEndpoint: 'http://127.0.0.1:2' }, {});

    expect(again).toBe(first);
    expect(other).not.toBe(first);
  });

  it('talks to a local endpoint as us-east-1 with dummy credentials', async () => {
    const client = createDynamoClient({ dynamodbEndpoint: 'http://127.0.0.1:3' }, {});

    expect(await client.config.region()).toBe('us-east-1');
    expect((await client.config.credentials()).accessKeyId).toBe('fleet-router-local');
    expect(client.config.maxAttempts).toBeDefined();
  });

  it('prefers AWS_REGION and leaves real credentials to the default chain', async () => {
    const env = { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };

    const client = createDynamoClient({ dynamodbEndpoint: 'http://127.0.0.1:4' }, env);

    expect(await client.config.region()).toBe('eu-west-1');
    expect(client.config.endpoint).toBeDefined();
  });
});
