/**
 * `npx serverless package` renders the AWS deployment offline, with no credentials, as an operator runs
 * it: it builds the bundles first, checks the parameters (no placeholder ids; id lists in any of three
 * forms), and renders every function with a role of its own, every REST method as a response-streaming
 * integration, OPTIONS on every path (CORS preflights) at the same function as the emulator routes them,
 * the private API's VPC endpoint policy, the table (keys, index, TTL, PITR, deletion protection), the
 * settings and SSM parameter names in each function's environment, the alarms, and zips within bounds.
 * It runs in a copy of the sources with no dist/ (test/helpers/project-copy), as on a fresh clone: the build
 * it starts writes that copy's dist/, never the one the end-to-end tests run from at the same time.
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { readRouteTable } from '../../../emulator/routes';
import { frameworkEnv } from '../../helpers/framework-env';
import { cloneProject } from '../../helpers/project-copy';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

interface Template {
  Resources: Record<string, Resource>;
}

type Reference = { Ref: string } | { 'Fn::GetAtt': [string, string] };

const root = join(__dirname, '..', '..', '..');
const SUBNETS = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];
const REQUIRED = [`--param=securityGroupIds=sg-0123456789abcdef0`, `--param=vpcEndpointIds=vpce-0123456789abcdef0`];

/** The fresh clone every render of this file runs in, made on first use. */
let clone: Promise<string> | undefined;
afterAll(async () => {
  if (clone !== undefined) rmSync(await clone, { recursive: true, force: true });
});

/**
 * Runs `serverless package` in the clone into a fresh directory; resolves with the directory, or rejects
 * with its output. `env` adds to the bare environment (a shell's variables that must not leak).
 */
async function slsPackage(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  clone ??= cloneProject('fleet-sls-clone-');
  const dir = await clone;
  const out = mkdtempSync(join(tmpdir(), 'fleet-sls-'));
  try {
    await promisify(execFile)(
      process.execPath,
      [join(dir, 'node_modules', 'serverless', 'bin', 'serverless.js'), 'package', '--package', out, ...args],
      {
        cwd: dir,
        env: frameworkEnv(out, env),
      },
    );
    return out;
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${stdout ?? ''}${stderr ?? ''}`);
  }
}

/** A resource's properties; throws when the template lacks it. */
function propertiesOf(template: Template, id: string): Record<string, unknown> {
  const resource = template.Resources[id];
  if (resource === undefined) throw new Error(`the template has no ${id}`);
  return resource.Properties;
}

const templateIn = (out: string): Template =>
  JSON.parse(readFileSync(join(out, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;

/** `METHOD /path → Function` for every REST method in the template. */
function renderedRoutes(resources: Record<string, Resource>): string[] {
  const pathOf = (reference: Reference): string => {
    if (!('Ref' in reference)) return '';
    const resource = resources[reference.Ref];
    if (resource === undefined) throw new Error(`no resource ${reference.Ref}`);
    return `${pathOf(resource.Properties['ParentId'] as Reference)}/${String(resource.Properties['PathPart'])}`;
  };
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
    .map((method) => {
      const target = JSON.stringify(method.Properties['Integration']).match(/([A-Za-z0-9]+)LambdaFunction/)?.[1];
      const path = pathOf(method.Properties['ResourceId'] as Reference) || '/';
      return `${String(method.Properties['HttpMethod'])} ${path} → ${target ?? '?'}`;
    })
    .sort();
}

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** The statements of the role a function runs as. */
function statementsOf(template: Template, fn: string): Statement[] {
  const role = propertiesOf(template, `${fn}LambdaFunction`)['Role'] as { 'Fn::GetAtt': [string, string] };
  const policies = template.Resources[role['Fn::GetAtt'][0]]?.Properties['Policies'] as {
    PolicyDocument: { Statement: Statement[] };
  }[];
  return policies.flatMap((policy) => policy.PolicyDocument.Statement);
}

const actionsOf = (statements: Statement[], prefix: string): string[] =>
  statements
    .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
    .filter((action) => action.startsWith(prefix))
    .sort();

const FUNCTIONS = ['Dashboard', 'Fleet', 'Media', 'Messages', 'Ollama', 'Openai', 'Poller'];

/** Zip bounds (bytes): each about 10% over what it measured when set (docs/deploying.md, "Deploying to AWS"). */
const ZIP_BOUNDS: Record<string, number> = {
  dashboard: 1_100_000,
  fleet: 600_000,
  media: 620_000,
  messages: 1_170_000,
  ollama: 1_170_000,
  openai: 1_200_000,
  poller: 580_000,
};

describe('serverless package', () => {
  let out: string;
  let template: Template;

  beforeAll(async () => {
    out = await slsPackage(
      [
        // The list form an operator types, which once rendered one bogus id.
        `--param=subnetIds=[${SUBNETS.join(',')}]`,
        ...REQUIRED,
        '--param=apiKeysParameter=/fleet-router/dev/api-keys',
        '--param=adminKeysParameter=/fleet-router/dev/admin-keys',
        '--param=nodeKeysParameter=/fleet-router/dev/node-keys',
        '--param=nodeConcurrency=gpu1=4,gpu2=2',
        '--param=modelMap=claude-sonnet-4-5=qwen3-coder:30b,default=qwen3:32b',
        '--param=nodes=gpu1=http://10.0.1.10:11434,gpu2=http://10.0.1.11:11434',
        '--param=alarmTopicArn=arn:aws:sns:eu-west-1:123456789012:fleet-alarms',
        // A shell pointed at a local table (as for `serverless offline`) must not ship that endpoint.
      ],
      { FLEET_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' },
    );
    template = templateIn(out);
  }, 120_000);

  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('renders every function, each method streaming, and every route the emulator serves', () => {
    const methods = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::ApiGateway::Method');
    const functions = Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([name]) => name.replace(/LambdaFunction$/, ''))
      .sort();

    expect(functions).toEqual(FUNCTIONS);
    expect(methods.length).toBeGreaterThanOrEqual(10);
    for (const method of methods) {
      const integration = method.Properties['Integration'] as { ResponseTransferMode?: string; Uri: unknown };
      expect(integration.ResponseTransferMode).toBe('STREAM');
      expect(JSON.stringify(integration.Uri)).toContain('response-streaming-invocations');
    }
    const capitalized = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    const emulated = readRouteTable(join(root, 'serverless.yml'))
      .routes.map((route) => `${route.method} ${route.pattern.template} → ${capitalized(route.function.name)}`)
      .sort();
    const rendered = renderedRoutes(template.Resources);
    expect(rendered).toEqual(emulated);
    for (const route of [
      'OPTIONS /v1/chat/completions → Openai',
      'ANY /{proxy+} → Ollama',
      'GET /dashboard → Dashboard',
      'GET /dashboard/assets/{file} → Dashboard',
      'GET /dashboard/events → Dashboard',
      'GET /metrics → Dashboard',
      'POST /heartbeat → Fleet',
    ]) {
      expect(rendered).toContain(route);
    }
  });

  it('renders a private API that only the VPC endpoint reaches, and the functions in the subnets', () => {
    const api = propertiesOf(template, 'ApiGatewayRestApi');

    expect(api?.['EndpointConfiguration']).toEqual({ Types: ['PRIVATE'], VpcEndpointIds: ['vpce-0123456789abcdef0'] });
    expect(api?.['Policy']).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: '*',
          Action: ['execute-api:Invoke'],
          Resource: 'execute-api:/*',
          Condition: { StringEquals: { 'aws:SourceVpce': ['vpce-0123456789abcdef0'] } },
        },
      ],
    });
    for (const fn of FUNCTIONS) {
      expect(propertiesOf(template, `${fn}LambdaFunction`)['VpcConfig']).toEqual({
        SecurityGroupIds: ['sg-0123456789abcdef0'],
        SubnetIds: SUBNETS,
      });
    }
  });

  it('renders the table with its keys, index, TTL, point-in-time recovery and deletion protection, retained', () => {
    const table = template.Resources['FleetTable'];

    expect(table?.DeletionPolicy).toBe('Retain');
    expect(table?.UpdateReplacePolicy).toBe('Retain');
    expect(table?.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      DeletionProtectionEnabled: true,
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('gives each function a role of its own with only the table actions its code paths use', () => {
    const roles = FUNCTIONS.map(
      (fn) => (propertiesOf(template, `${fn}LambdaFunction`)['Role'] as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0],
    );
    expect(new Set(roles).size).toBe(FUNCTIONS.length);
    expect(template.Resources['IamRoleLambdaExecution']).toBeUndefined();

    const routing = [
      'dynamodb:BatchWriteItem',
      'dynamodb:DescribeTable',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ];
    // Node records are written with UpdateItem (their doc only), so another instance's published ejection
    // on the same item survives a heartbeat or a poll.
    const nodes = ['dynamodb:DescribeTable', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'];
    const expected: Record<string, string[]> = {
      Openai: routing,
      Messages: routing,
      Media: routing,
      Ollama: [...routing, 'dynamodb:DeleteItem', 'dynamodb:PutItem'].sort(),
      Dashboard: [...routing, 'dynamodb:DeleteItem', 'dynamodb:PutItem'].sort(),
      Fleet: nodes,
      Poller: nodes,
    };
    for (const fn of FUNCTIONS) {
      const statements = statementsOf(template, fn);
      expect([fn, actionsOf(statements, 'dynamodb:')]).toEqual([fn, expected[fn]]);
      const tableResources = JSON.stringify(
        statements.find((statement) => actionsOf([statement], 'dynamodb:').length > 0)?.Resource,
      );
      // Only the dashboard reads traces by the gsi1 index.
      expect([fn, tableResources.includes('/index/')]).toEqual([fn, fn === 'Dashboard']);
      expect(JSON.stringify(statements)).not.toMatch(
        /"dynamodb:\*"|"Resource":"\*","Effect":"Allow","Action":"dynamodb/,
      );
      expect(actionsOf(statements, 'logs:')).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      expect(JSON.stringify(statements)).toContain(`log-group:/aws/lambda/fleet-router-dev-${fn.toLowerCase()}:*`);
    }
  });

  it('lets only the dashboard invoke a function, and only itself (its benchmark runs)', () => {
    for (const fn of FUNCTIONS) {
      const invoke = statementsOf(template, fn).filter((statement) => actionsOf([statement], 'lambda:').length > 0);
      if (fn !== 'Dashboard') {
        expect([fn, invoke]).toEqual([fn, []]);
        continue;
      }
      expect(invoke).toEqual([
        {
          Effect: 'Allow',
          Action: 'lambda:InvokeFunction',
          Resource: {
            'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:fleet-router-dev-dashboard`,
          },
        },
      ]);
    }
  });

  it('names the SSM parameters in the environment and lets each function read and decrypt exactly those', () => {
    const parameterArn = (name: string) => ({
      'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter/fleet-router/dev/${name}`,
    });
    for (const fn of FUNCTIONS) {
      const environment = (
        propertiesOf(template, `${fn}LambdaFunction`)['Environment'] as { Variables: Record<string, string> }
      ).Variables;
      const names = [...(fn === 'Poller' ? [] : ['api-keys', 'admin-keys']), ...(fn === 'Fleet' ? ['node-keys'] : [])];
      expect([fn, environment['FLEET_API_KEYS_SSM'] ?? '']).toEqual([
        fn,
        fn === 'Poller' ? '' : '/fleet-router/dev/api-keys',
      ]);
      expect([fn, environment['FLEET_ADMIN_KEYS_SSM'] ?? '']).toEqual([
        fn,
        fn === 'Poller' ? '' : '/fleet-router/dev/admin-keys',
      ]);
      expect([fn, environment['FLEET_NODE_KEYS_SSM'] ?? '']).toEqual([
        fn,
        fn === 'Fleet' ? '/fleet-router/dev/node-keys' : '',
      ]);
      const statements = statementsOf(template, fn);
      const ssm = statements.filter((statement) => actionsOf([statement], 'ssm:').length > 0);
      const kms = statements.filter((statement) => actionsOf([statement], 'kms:').length > 0);
      if (names.length === 0) {
        expect([fn, ssm, kms]).toEqual([fn, [], []]);
        continue;
      }
      expect(ssm).toEqual([{ Effect: 'Allow', Action: 'ssm:GetParameters', Resource: names.map(parameterArn) }]);
      expect(kms).toEqual([
        {
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: { 'Fn::Sub': `arn:\${AWS::Partition}:kms:\${AWS::Region}:\${AWS::AccountId}:key/*` },
          Condition: {
            StringEquals: {
              'kms:ViaService': { 'Fn::Sub': `ssm.\${AWS::Region}.amazonaws.com` },
              'kms:EncryptionContext:PARAMETER_ARN': names.map(parameterArn),
            },
          },
        },
      ]);
    }
  });

  it('hands the settings to the functions as their FLEET_* variables', () => {
    const environment = (
      propertiesOf(template, 'OllamaLambdaFunction')['Environment'] as {
        Variables: Record<string, string>;
      }
    ).Variables;

    expect(environment).toMatchObject({
      FLEET_TABLE: 'fleet-router-dev',
      FLEET_NODES: 'gpu1=http://10.0.1.10:11434,gpu2=http://10.0.1.11:11434',
      FLEET_NODE_CONCURRENCY: 'gpu1=4,gpu2=2',
      FLEET_MODEL_MAP: 'claude-sonnet-4-5=qwen3-coder:30b,default=qwen3:32b',
      FLEET_QUEUE_MAX_PENDING: '',
    });
    // A local table endpoint in the shell never reaches a deployment.
    expect(environment['FLEET_DYNAMODB_ENDPOINT']).toBeUndefined();
    expect(environment['FLEET_API_KEYS']).toBeUndefined();
    expect(environment['FLEET_NODE_KEYS']).toBeUndefined();
  });

  it('schedules the poller each minute, two invocations at a time so they overlap, with room to end', () => {
    const poller = propertiesOf(template, 'PollerLambdaFunction');
    const schedule = Object.values(template.Resources).find((resource) => resource.Type === 'AWS::Events::Rule');

    expect(schedule?.Properties['ScheduleExpression']).toBe('rate(1 minute)');
    expect(poller?.['ReservedConcurrentExecutions']).toBe(2);
    expect(poller?.['Timeout']).toBeGreaterThanOrEqual(95);
    expect(poller?.['MemorySize']).toBe(256);
  });

  it('keeps each log group two weeks and raises the alarms to the topic', () => {
    const logGroups = Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Logs::LogGroup');
    const alarms = Object.entries(template.Resources).filter(
      ([, resource]) => resource.Type === 'AWS::CloudWatch::Alarm',
    );

    expect(logGroups.map((group) => group.Properties['RetentionInDays'])).toEqual(FUNCTIONS.map(() => 14));
    expect(alarms.map(([id]) => id).sort()).toEqual(
      [
        'ApiServerErrorRateAlarm',
        'TableSystemErrorsAlarm',
        'TableWriteThrottlesAlarm',
        ...FUNCTIONS.flatMap((fn) => [`${fn}ErrorsAlarm`, `${fn}ThrottlesAlarm`]),
      ].sort(),
    );
    for (const [, alarm] of alarms) {
      expect(alarm.Properties['AlarmActions']).toEqual(['arn:aws:sns:eu-west-1:123456789012:fleet-alarms']);
    }
    expect(propertiesOf(template, 'ApiServerErrorRateAlarm')).toMatchObject({
      MetricName: '5XXError',
      Dimensions: [{ Name: 'ApiName', Value: 'dev-fleet-router' }],
      Threshold: 0.05,
    });
  });

  it('zips each function within its bound: the tokenizer only where tokens are counted', () => {
    const sizes = Object.fromEntries(Object.keys(ZIP_BOUNDS).map((fn) => [fn, statSync(join(out, `${fn}.zip`)).size]));

    for (const [fn, bound] of Object.entries(ZIP_BOUNDS))
      expect([fn, (sizes[fn] ?? Number.POSITIVE_INFINITY) <= bound]).toEqual([fn, true]);
  });
});

describe('serverless package parameters', () => {
  /** `serverless print` of the resolved provider.vpc: the parameters as rendered, without a build. */
  async function printedVpc(args: readonly string[]): Promise<{ subnetIds: string[] }> {
    const home = mkdtempSync(join(tmpdir(), 'fleet-sls-print-'));
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          join(root, 'node_modules', 'serverless', 'bin', 'serverless.js'),
          'print',
          '--format',
          'json',
          '--path',
          'provider.vpc',
          ...args,
        ],
        { cwd: root, env: frameworkEnv(home) },
      );
      return JSON.parse(stdout) as { subnetIds: string[] };
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  it.each([
    ['the list form', `--param=subnetIds=[${SUBNETS.join(',')}]`],
    ['the comma form', `--param=subnetIds=${SUBNETS.join(',')}`],
    ['the JSON form', `--param=subnetIds=${JSON.stringify(SUBNETS)}`],
    ['the comma form with spaces', `--param=subnetIds= ${SUBNETS.join(' , ')}`],
  ])(
    'resolves %s of a list of subnets as the same two ids',
    async (_form, subnets) => {
      expect((await printedVpc([subnets, ...REQUIRED])).subnetIds).toEqual(SUBNETS);
    },
    60_000,
  );

  it("takes the deploy guide's command as written, and the README's Commands row names the required parameters", async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const guide = readFileSync(join(root, 'docs', 'deploying.md'), 'utf8');
    const deploy = /```sh\n(npx serverless deploy[^`]*)```/.exec(guide)?.[1] ?? '';
    const params = [...deploy.matchAll(/--param="([^"]+)"/g)].map((match) => `--param=${match[1]}`);
    const declared = Object.keys(
      (parse(readFileSync(join(root, 'serverless.yml'), 'utf8')) as { params: { default: Record<string, string> } })
        .params.default,
    );
    const packageRow = readme.split('\n').find((line) => line.startsWith('| `npx serverless package')) ?? '';

    expect(params.length).toBeGreaterThanOrEqual(3);
    for (const param of params) expect(declared).toContain(param.slice('--param='.length, param.indexOf('=', 8)));
    for (const name of ['subnetIds', 'securityGroupIds', 'vpcEndpointIds']) {
      expect(params.some((param) => param.startsWith(`--param=${name}=`))).toBe(true);
      expect(packageRow).toContain(`--param="${name}=`);
    }
    expect((await printedVpc(params)).subnetIds).toEqual(SUBNETS);
  }, 60_000);

  it('refuses to render without the ids, naming each missing parameter with an example', async () => {
    const failure = slsPackage([]);

    await expect(failure).rejects.toThrow(
      /parameter subnetIds is required .*--param="subnetIds=subnet-0123456789abcdef0/,
    );
    await expect(failure).rejects.toThrow(/parameter securityGroupIds is required/);
    await expect(failure).rejects.toThrow(/parameter vpcEndpointIds is required/);
  }, 120_000);

  it('refuses an id of the wrong shape, and a malformed setting, naming them', async () => {
    await expect(slsPackage(['--param=subnetIds=subnet-a,subnet-b', ...REQUIRED])).rejects.toThrow(
      /parameter subnetIds: "subnet-a", "subnet-b" is not a subnet- id/,
    );
    await expect(
      slsPackage([`--param=subnetIds=${SUBNETS[0]}`, ...REQUIRED, '--param=queueMaxPending=lots']),
    ).rejects.toThrow(/parameter queueMaxPending is "lots", not a whole number/);
  }, 120_000);
});
