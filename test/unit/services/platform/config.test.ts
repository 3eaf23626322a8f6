import { describe, expect, it } from '@jest/globals';
import { loadConfig, parseListedNode } from '../../../../lib/services/platform/config';

describe('loadConfig', () => {
  it('has the contract defaults with nothing set', () => {
    const config = loadConfig({});

    expect(config).toMatchObject({
      port: 11435,
      host: '127.0.0.1',
      nodes: [],
      pollIntervalMs: 2000,
      dataDir: './.fleet-data',
      dynamodbEndpoint: undefined,
      table: 'fleet-router',
      imageGeneration: false,
      transcription: false,
      corsOrigins: undefined,
      maxRetries: 2,
      apiKeys: undefined,
      degradedAfterMs: 15_000,
      offlineAfterMs: 30_000,
      // as patient as an Ollama alone (OLLAMA_MAX_QUEUE 512) and an SDK client (10 minutes)
      queueMaxPending: 512,
      queueTimeoutMs: 600_000,
      // a pull's lease lasts a minute unless renewed: how long a router that died mid-pull blocks the model
      pullLeaseMs: 60_000,
      autoRoute: true,
      context: {
        clearTriggerTokens: 100_000,
        clearKeepRecent: 3,
        compaction: false,
        compactionBudgetTokens: 20_000,
        compactionModel: undefined,
        maxPromptTokens: 180_000,
      },
    });
    expect(config.modelMap.size).toBe(0);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      FLEET_PORT: '8080',
      FLEET_HOST: '0.0.0.0',
      FLEET_NODES: 'gpu1=http://10.0.0.5:11434, 10.0.0.6:11434',
      FLEET_POLL_INTERVAL_MS: '500',
      FLEET_DATA_DIR: ':memory:',
      FLEET_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      FLEET_TABLE: 'fleet-test',
      FLEET_IMAGE_GENERATION: 'true',
      FLEET_TRANSCRIPTION: '1',
      FLEET_CORS_ORIGINS: 'http://localhost:*,https://app.example',
      FLEET_MAX_RETRIES: '0',
      FLEET_API_KEYS: 'a,b',
      FLEET_NODE_CONCURRENCY: 'gpu1=4',
      FLEET_MODEL_MAP: 'claude-haiku-4-5=qwen3:8b, default=qwen3:32b',
      FLEET_AUTO_ROUTE: 'false',
      FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '0',
      FLEET_CONTEXT_CLEAR_KEEP_RECENT: '5',
      FLEET_CONTEXT_COMPACTION: 'on',
      FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS: '30000',
      FLEET_CONTEXT_COMPACTION_MODEL: 'gpt-oss:120b',
      FLEET_MAX_PROMPT_TOKENS: '64000',
    });

    expect(config.port).toBe(8080);
    expect(config.nodes).toEqual([
      { id: 'gpu1', url: 'http://10.0.0.5:11434' },
      { id: '10.0.0.6:11434', url: 'http://10.0.0.6:11434' },
    ]);
    expect(config.imageGeneration).toBe(true);
    expect(config.transcription).toBe(true);
    expect(config.corsOrigins).toEqual(['http://localhost:*', 'https://app.example']);
    expect(config.maxRetries).toBe(0);
    expect(config.apiKeys).toEqual(['a', 'b']);
    expect(config.nodeConcurrency.get('gpu1')).toBe(4);
    expect([...config.modelMap]).toEqual([
      ['claude-haiku-4-5', 'qwen3:8b'],
      ['default', 'qwen3:32b'],
    ]);
    expect(config.autoRoute).toBe(false);
    expect(config.context).toEqual({
      clearTriggerTokens: 0,
      clearKeepRecent: 5,
      compaction: true,
      compactionBudgetTokens: 30_000,
      compactionModel: 'gpt-oss:120b',
      maxPromptTokens: 64_000,
    });
  });

  it("reads node agents' keys from FLEET_NODE_KEYS, apart from the client keys", () => {
    const config = loadConfig({ FLEET_API_KEYS: 'client-1', FLEET_NODE_KEYS: 'node-1, node-2' });

    expect(config.apiKeys).toEqual(['client-1']);
    expect(config.nodeKeys).toEqual(['node-1', 'node-2']);
    expect(loadConfig({}).nodeKeys).toBeUndefined();
  });

  it('refuses a key that is both a client key and a node key', () => {
    expect(() => loadConfig({ FLEET_API_KEYS: 'a,shared', FLEET_NODE_KEYS: 'shared' })).toThrow(/FLEET_NODE_KEYS/);
  });

  it('reads operator keys from FLEET_ADMIN_KEYS, as written', () => {
    const config = loadConfig({ FLEET_API_KEYS: 'team-a:sk-a', FLEET_ADMIN_KEYS: 'ops:sk-ops, sk-other' });

    expect(config.adminKeys).toEqual(['ops:sk-ops', 'sk-other']);
    expect(loadConfig({}).adminKeys).toBeUndefined();
  });

  it.each([
    [{ FLEET_API_KEYS: 'a,shared', FLEET_ADMIN_KEYS: 'shared' }, 'FLEET_ADMIN_KEYS: a key is also in FLEET_API_KEYS'],
    [{ FLEET_ADMIN_KEYS: 'shared', FLEET_NODE_KEYS: 'shared' }, 'FLEET_NODE_KEYS: a key is also in FLEET_ADMIN_KEYS'],
    // The key is what counts, whatever name each list gives it.
    [
      { FLEET_API_KEYS: 'app:shared', FLEET_ADMIN_KEYS: 'ops:shared' },
      'FLEET_ADMIN_KEYS: a key is also in FLEET_API_KEYS',
    ],
  ])('refuses a key in two lists, naming both variables (%j)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses one name given to two keys', () => {
    expect(() => loadConfig({ FLEET_API_KEYS: 'team:sk-1', FLEET_ADMIN_KEYS: 'team:sk-2' })).toThrow(
      'FLEET_ADMIN_KEYS: the name "team" is given to two keys',
    );
  });

  it('reads FLEET_MODEL_MAP as a JSON object too', () => {
    const config = loadConfig({ FLEET_MODEL_MAP: '{"claude-opus-4-1": "qwen3:32b"}' });

    expect(config.modelMap.get('claude-opus-4-1')).toBe('qwen3:32b');
  });

  it.each([
    ['FLEET_PORT', 'eleven'],
    ['FLEET_PORT', '70000'],
    ['FLEET_MAX_RETRIES', '-1'],
    ['FLEET_IMAGE_GENERATION', 'maybe'],
    ['FLEET_DYNAMODB_ENDPOINT', 'not a url'],
    ['FLEET_TABLE', 'a b'],
    ['FLEET_NODE_CONCURRENCY', 'gpu1=0'],
    ['FLEET_NODES', 'ftp://10.0.0.5'],
    ['FLEET_MODEL_MAP', 'claude-haiku'],
    ['FLEET_MODEL_MAP', '{"a": 1}'],
    ['FLEET_MODEL_MAP', '{not json'],
    ['FLEET_MAX_PROMPT_TOKENS', 'lots'],
    ['FLEET_QUEUE_MAX_PENDING', '0'],
    ['FLEET_QUEUE_TIMEOUT_MS', '999'],
    ['FLEET_QUEUE_TIMEOUT_MS', '900001'],
    ['FLEET_PULL_LEASE_MS', '999'],
    ['FLEET_PULL_LEASE_MS', '3600001'],
    ['FLEET_PRIORITY_AGING_MS', '10'],
    ['FLEET_APP_LIMITS', 'tag:nightly=many'],
    ['FLEET_APP_WEIGHTS', 'chat=2'],
    ['FLEET_APP_PRIORITIES', 'tag:nightly=urgent'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it("reads the sharing settings (issue 43): aging, and each application's priority, weight and limit", () => {
    const { sharing } = loadConfig({
      FLEET_PRIORITY_AGING_MS: '5000',
      FLEET_APP_PRIORITIES: 'tag:nightly=low',
      FLEET_APP_WEIGHTS: 'tag:chat=3',
      FLEET_APP_LIMITS: 'tag:nightly=8,*=64',
    });

    expect(sharing.agingMs).toBe(5000);
    expect([...sharing.priorities]).toEqual([['tag:nightly', 'low']]);
    expect([...sharing.weights]).toEqual([['tag:chat', 3]]);
    expect([...sharing.limits]).toEqual([
      ['tag:nightly', 8],
      ['*', 64],
    ]);
  });

  it('reads the admission settings: how many may wait per node and model, and how long', () => {
    expect(loadConfig({ FLEET_QUEUE_MAX_PENDING: '64', FLEET_QUEUE_TIMEOUT_MS: '30000' })).toMatchObject({
      queueMaxPending: 64,
      queueTimeoutMs: 30_000,
    });
  });

  it('reads the first-byte deadline and the outlier ejection settings, with their defaults', () => {
    const defaults = loadConfig({});
    const set = loadConfig({
      FLEET_FIRST_BYTE_TIMEOUT_MS: '90000',
      FLEET_EJECT_AFTER_FAILURES: '0',
      FLEET_EJECT_BASE_MS: '10000',
      FLEET_EJECT_MAX_MS: '5000',
    });

    expect(defaults.firstByteTimeoutMs).toBe(120_000);
    expect(defaults.ejection).toEqual({ consecutiveFailures: 3, baseMs: 30_000, maxMs: 300_000 });
    expect(set.firstByteTimeoutMs).toBe(90_000);
    // A longest ejection below the first one is read as the first one.
    expect(set.ejection).toEqual({ consecutiveFailures: 0, baseMs: 10_000, maxMs: 10_000 });
    expect(() => loadConfig({ FLEET_FIRST_BYTE_TIMEOUT_MS: '10' })).toThrow('FLEET_FIRST_BYTE_TIMEOUT_MS');
    expect(() => loadConfig({ FLEET_EJECT_AFTER_FAILURES: 'some' })).toThrow('FLEET_EJECT_AFTER_FAILURES');
  });

  it('reads how long a thawed process waits for its one fresh read, 200 ms unless set, and refuses a bad value', () => {
    expect(loadConfig({}).snapshotWaitMs).toBe(200);
    expect(loadConfig({ FLEET_THAW_WAIT_MS: '1500' }).snapshotWaitMs).toBe(1500);
    expect(() => loadConfig({ FLEET_THAW_WAIT_MS: 'soon' })).toThrow(/FLEET_THAW_WAIT_MS/);
  });

  it('refuses a node id listed twice', () => {
    expect(() => loadConfig({ FLEET_NODES: 'a=http://x:1,a=http://y:1' })).toThrow('listed twice');
  });
});

describe('parseListedNode', () => {
  it('keeps a path prefix and drops a trailing slash', () => {
    expect(parseListedNode('proxy=https://gpu.example/ollama/')).toEqual({
      id: 'proxy',
      url: 'https://gpu.example/ollama',
    });
  });
});
