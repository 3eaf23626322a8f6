/**
 * Each function's table actions, observed against the role it deploys with (serverless.yml
 * `custom.functionAccess`, rendered by serverless/function-roles.js). Under `serverless offline` each
 * function is given its own table endpoint, `<recorder>/<function>` (a function's environment overrides the
 * provider's), behind a recording proxy to a dynalite: every call a function makes is recorded with its
 * action and index. The flows that touch the table are driven as a user drives them — heartbeats, chats in
 * the three styles (a second turn reads the conversation's pin), embeddings, images and transcripts, pulls
 * (a lease taken, renewed and released), copy and delete, the dashboard's reads, settings, benchmarks and
 * pulls, the poller through the Lambda API — and their writes behind are awaited. Then `serverless package`
 * renders the CloudFormation, and every action a function issued must be in its role's DynamoDB statement
 * (and the index granted where it queried `gsi1`): a missing one would be an AccessDenied in AWS only.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseDocument } from 'yaml';
import {
  CATALOG,
  DEFAULT_IMAGE_MODELS,
  DEFAULT_TRANSCRIPTION_MODELS,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import { createDynamoClient, destroyDynamoClients } from '../../lib/services/store/client';
import { ensureTable } from '../../lib/services/store/ensure-table';
import { frameworkEnv } from '../helpers/framework-env';
import { cloneProject } from '../helpers/project-copy';
import { wavFile } from '../helpers/upload-form';
import { type DynaliteProcess, startDynaliteProcess } from './dynalite-process';
import { eventually } from './router-process';
import { type OfflineProcess, startOffline } from './serverless-offline-process';
import { startTableCallRecorder, type TableCallRecorder } from './table-call-recorder';

const FUNCTIONS = ['ollama', 'openai', 'messages', 'media', 'dashboard', 'fleet', 'poller'] as const;
type FunctionName = (typeof FUNCTIONS)[number];

const TABLE = 'fleet-router-dev';
const CHAT_MODEL = 'llama3.2:3b';
const EMBED_MODEL = 'nomic-embed-text:latest';
/** Pulled through /api/pull, then through the dashboard; neither is on the node before. */
const PULLED = ['qwen3:8b', 'gemma3:12b'];
/**
 * The endpoint the shell gives (so offline-setup starts no stand-in of its own) and the provider's environment
 * takes: a call recorded under it would come from a function whose own endpoint did not apply.
 */
const UNROUTED = 'provider';

let dynalite: DynaliteProcess;
let recorder: TableCallRecorder;
let offline: OfflineProcess;
let agent: SimAgent;
/** The node FLEET_NODES lists: the one the poller polls. */
let listed: SimNode;
let rendered: Promise<Template>;

interface Statement {
  readonly Action: string | readonly string[];
  readonly Resource: unknown;
}

interface Template {
  readonly Resources: Record<string, { Properties: Record<string, unknown> }>;
}

/** `serverless package` in a fresh clone with the three required ids; resolves with the template. */
async function renderTemplate(): Promise<Template> {
  const dir = await cloneProject('fleet-iam-clone-');
  const out = await mkdtemp(join(tmpdir(), 'fleet-iam-package-'));
  try {
    await promisify(execFile)(
      process.execPath,
      [
        join(dir, 'node_modules', 'serverless', 'bin', 'serverless.js'),
        'package',
        '--package',
        out,
        '--param=subnetIds=subnet-0123456789abcdef0',
        '--param=securityGroupIds=sg-0123456789abcdef0',
        '--param=vpcEndpointIds=vpce-0123456789abcdef0',
      ],
      {
        cwd: dir,
        env: frameworkEnv(out),
      },
    );
    return JSON.parse(await readFile(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
  } finally {
    await Promise.all([rm(dir, { recursive: true, force: true }), rm(out, { recursive: true, force: true })]);
  }
}

/** The DynamoDB actions (without `dynamodb:`) a function's role allows, and whether on the table's indexes too. */
function tableGrants(template: Template, fn: FunctionName): { actions: Set<string>; index: boolean } {
  const logicalId = `${fn[0]?.toUpperCase()}${fn.slice(1)}LambdaFunction`;
  const role = template.Resources[logicalId]?.Properties['Role'] as { 'Fn::GetAtt': [string, string] };
  const policies = template.Resources[role['Fn::GetAtt'][0]]?.Properties['Policies'] as {
    PolicyDocument: { Statement: Statement[] };
  }[];
  const actions = new Set<string>();
  let index = false;
  for (const statement of policies.flatMap((policy) => policy.PolicyDocument.Statement)) {
    const listed = typeof statement.Action === 'string' ? [statement.Action] : statement.Action;
    const table = listed.filter((action) => action.startsWith('dynamodb:'));
    if (table.length === 0) continue;
    for (const action of table) actions.add(action.slice('dynamodb:'.length));
    if (JSON.stringify(statement.Resource).includes('/index/')) index = true;
  }
  return { actions, index };
}

/** The actions each function was seen to issue, with `Query@gsi1` for a query of the index. */
function observed(): Map<string, Set<string>> {
  const byCaller = new Map<string, Set<string>>();
  for (const call of recorder.calls) {
    const set = byCaller.get(call.caller) ?? new Set<string>();
    set.add(call.index === undefined ? call.action : `${call.action}@${call.index}`);
    byCaller.set(call.caller, set);
  }
  return byCaller;
}

function send(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${offline.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A request that must succeed; answers its body as text. */
async function ok(method: string, path: string, body?: unknown): Promise<string> {
  const response = await send(method, path, body);
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

/** No new table call for `quietMs`: the writes behind every request have landed. */
async function settled(quietMs = 1500, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  while (seen !== recorder.calls.length && Date.now() < deadline) {
    seen = recorder.calls.length;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
}

beforeAll(async () => {
  rendered = renderTemplate();
  // Keeps a failed render from being an unhandled rejection before the test reads it.
  rendered.catch(() => undefined);
  dynalite = await startDynaliteProcess();
  // In AWS the table exists before any function runs (CloudFormation); nothing of theirs creates it.
  await ensureTable(createDynamoClient({ dynamodbEndpoint: dynalite.endpoint }), TABLE);
  recorder = await startTableCallRecorder(dynalite.endpoint);
  listed = await startSimNode({ id: 'listed', models: CATALOG.filter((entry) => entry.name === CHAT_MODEL) });
  offline = await startOffline({
    env: {
      FLEET_DYNAMODB_ENDPOINT: `${recorder.url}/${UNROUTED}`,
      FLEET_NODES: `listed=${listed.url}`,
      FLEET_IMAGE_GENERATION: 'true',
      FLEET_TRANSCRIPTION: 'true',
      // Renewed every third of it: a pull of a few seconds renews its lease several times.
      FLEET_PULL_LEASE_MS: '1000',
    },
    prepare: async (dir) => {
      const file = join(dir, 'serverless.yml');
      const document = parseDocument(await readFile(file, 'utf8'));
      for (const fn of FUNCTIONS) {
        document.setIn(['functions', fn, 'environment', 'FLEET_DYNAMODB_ENDPOINT'], `${recorder.url}/${fn}`);
      }
      await writeFile(file, document.toString());
    },
  });
  agent = await startSimAgent({
    nodeId: 'agent',
    routerUrl: offline.url,
    intervalMs: 60_000,
    ollamaOptions: {
      id: 'agent',
      models: CATALOG.filter((entry) => [CHAT_MODEL, EMBED_MODEL].includes(entry.name)),
      loaded: [CHAT_MODEL],
      ttftMs: 1,
      tokensPerSecond: Number.POSITIVE_INFINITY,
      pullStepMs: 150,
    },
    image: DEFAULT_IMAGE_MODELS,
    imageStepMs: 1,
    transcription: DEFAULT_TRANSCRIPTION_MODELS,
    transcriptionJobMs: 20,
  });
}, 150_000);

afterAll(async () => {
  await agent?.stop();
  await listed?.close();
  await offline?.stop();
  await recorder?.close();
  destroyDynamoClients();
  await dynalite?.stop();
  await rendered?.catch(() => undefined);
});

describe('every table action a function issues is allowed by its role', () => {
  it('drives each function’s table flows', async () => {
    // fleet: a heartbeat joins the node; the status views read the fleet.
    await agent.sendHeartbeat();
    await eventually(async () => expect(await ok('GET', '/fleet/status')).toContain('"agent"'), 15_000);
    await ok('GET', '/fleet/queue');

    // The three chat styles, each a conversation of two turns: the second reads the first's pin.
    const first = [{ role: 'user', content: 'Say hello' }];
    const second = [...first, { role: 'assistant', content: 'Hello!' }, { role: 'user', content: 'Again' }];
    for (const messages of [first, second]) {
      await eventually(() => ok('POST', '/api/chat', { model: CHAT_MODEL, messages, stream: false }), 15_000);
      await ok('POST', '/v1/chat/completions', { model: CHAT_MODEL, messages });
      await ok('POST', '/v1/messages', { model: CHAT_MODEL, max_tokens: 32, messages });
    }
    await ok('POST', '/api/generate', { model: CHAT_MODEL, prompt: 'Say hello', stream: false });
    await ok('POST', '/v1/responses', { model: CHAT_MODEL, input: 'Say hello', max_output_tokens: 16 });
    await ok('POST', '/v1/messages/count_tokens', { model: CHAT_MODEL, messages: first });
    await ok('POST', '/api/embed', { model: EMBED_MODEL, input: 'a lake' });
    await ok('POST', '/v1/embeddings', { model: EMBED_MODEL, input: 'a lake' });
    await ok('POST', '/v1/images/generations', { model: 'z-image-turbo', prompt: 'a lake', size: '64x64' });
    await ok('GET', '/api/tags');
    await ok('GET', '/api/ps');
    await ok('GET', '/v1/models');

    // media
    await ok('GET', '/api/image-models');
    await ok('POST', '/api/generate-image', { model: 'z-image-turbo', prompt: 'a lake', width: 64, height: 64 });
    const form = new FormData();
    form.append('audio', new Blob([wavFile(1)], { type: 'audio/wav' }), 'speech.wav');
    const transcript = await fetch(`${offline.url}/api/transcribe`, { method: 'POST', body: form });
    expect(transcript.status).toBe(200);

    // ollama's model management: a pull under its lease, a copy and a delete.
    const pullStarted = Date.now();
    await ok('POST', '/api/pull', { model: PULLED[0], stream: false });
    // Long enough for renewals: the lease (FLEET_PULL_LEASE_MS) is renewed every third of it.
    expect(Date.now() - pullStarted).toBeGreaterThan(1000);
    await ok('POST', '/api/copy', { source: CHAT_MODEL, destination: 'iam-copy:latest' });
    await ok('DELETE', '/api/delete', { model: 'iam-copy:latest' });

    // dashboard: its reads, settings, a pull and a delete, a benchmark started and cancelled.
    for (const view of [
      'overview',
      'traces',
      'usage',
      'models',
      'trends',
      'health',
      'apps',
      'tags',
      'apps/daily',
      'tags/daily',
      'context-usage',
      'settings',
      'benchmarks',
      'recommendations',
      'model-management',
    ]) {
      await ok('GET', `/dashboard/api/${view}`);
    }
    await ok('GET', '/metrics');
    await ok('POST', '/dashboard/api/settings', { image_generation: true, transcription: true });
    // The agent beats once a minute here; a real one beats every few seconds. On a loaded host the flow so
    // far can outlast the 30 s after which a silent node is offline, and a pull or delete needs it online.
    await agent.sendHeartbeat();
    await ok('POST', '/dashboard/api/pull', { model: PULLED[1], stream: false });
    await ok('POST', '/dashboard/api/delete', { node_id: 'agent', model: PULLED[1] });
    const started = JSON.parse(
      await ok('POST', '/dashboard/api/benchmarks/start', { duration: 1, model_types: ['llm'] }),
    ) as { run_id: string };
    await ok('GET', '/dashboard/api/benchmarks/progress');
    await ok('POST', '/dashboard/api/benchmarks/cancel', {});
    await eventually(async () => {
      const progress = JSON.parse(await ok('GET', '/dashboard/api/benchmarks/progress')) as { status: string };
      expect(progress.status).not.toBe('running');
    }, 20_000);
    await ok('GET', `/dashboard/api/benchmarks/${started.run_id}`);

    // poller: one pass through the Lambda Invoke API.
    const pass = await fetch(`${offline.lambdaUrl}/2015-03-31/functions/fleet-router-dev-poller/invocations`, {
      method: 'POST',
      body: JSON.stringify({ source: 'fleet.emulator' }),
    });
    expect(pass.status).toBe(200);
    expect(pass.headers.get('x-amz-function-error')).toBeNull();
    await eventually(async () => expect(await ok('GET', '/fleet/status')).toContain('"listed"'));

    // fleet again: the agent leaves (a drain).
    await agent.drain();

    await settled();
  }, 70_000);

  it('each function made table calls, every one from its own endpoint', () => {
    const seen = observed();
    const report = FUNCTIONS.map((fn) => `${fn}: ${[...(seen.get(fn) ?? [])].sort().join(', ')}`);
    console.log(`table actions observed per function:\n${report.join('\n')}`);

    expect([...seen.keys()].filter((caller) => !(FUNCTIONS as readonly string[]).includes(caller))).toEqual([]);
    expect(FUNCTIONS.filter((fn) => (seen.get(fn)?.size ?? 0) === 0)).toEqual([]);
  });

  it('every observed action is in that function’s rendered role', async () => {
    const template = await rendered;
    const seen = observed();
    const missing: string[] = [];
    const unused: string[] = [];
    for (const fn of FUNCTIONS) {
      const grants = tableGrants(template, fn);
      const actions = seen.get(fn) ?? new Set<string>();
      for (const entry of actions) {
        const [action = '', index] = entry.split('@');
        if (!grants.actions.has(action)) missing.push(`${fn}: ${action}`);
        if (index !== undefined && !grants.index) missing.push(`${fn}: ${action} on index ${index}`);
      }
      const used = new Set([...actions].map((entry) => entry.split('@')[0]));
      for (const action of grants.actions) if (!used.has(action)) unused.push(`${fn}: ${action}`);
      if (grants.index && ![...actions].some((entry) => entry.includes('@'))) unused.push(`${fn}: index access`);
    }
    console.log(`granted but not issued by these flows:\n${unused.join('\n')}`);

    expect(missing).toEqual([]);
  }, 60_000);
});
