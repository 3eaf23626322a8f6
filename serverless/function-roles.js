/**
 * Serverless Framework v3 plugin: one IAM role per function, each allowing only what that function does
 * (v3 has one shared role and no per-function statements). `custom.functionAccess.<function>` lists:
 *
 * - `table`: the DynamoDB actions its code paths issue on the fleet table, and `tableIndex: true` when it
 *   queries the `gsi1` index;
 * - `invokeSelf: true`: `lambda:InvokeFunction` on that function only (the dashboard's benchmark runs);
 *
 * and every role gets its own log group's streams and the network interfaces a function in a VPC needs
 * (the actions AWS documents for that, which take no narrower resource). The SSM parameters a function
 * reads at cold start (one `GetParameters` call) are the ones its environment names (`FLEET_API_KEYS_SSM`, `FLEET_ADMIN_KEYS_SSM`, `FLEET_NODE_KEYS_SSM`,
 * lib/services/platform/ssm-settings.ts): `ssm:GetParameters` on exactly those, and `kms:Decrypt` only
 * through SSM and only for those parameters (the encryption context SSM sends names the parameter).
 * A function with no entry is refused: a new function gets a role of its own, never a shared one.
 */

const SECRET_VARIABLES = ['FLEET_API_KEYS_SSM', 'FLEET_ADMIN_KEYS_SSM', 'FLEET_NODE_KEYS_SSM'];

const VPC_NETWORK_ACTIONS = [
  'ec2:CreateNetworkInterface',
  'ec2:DescribeNetworkInterfaces',
  'ec2:DescribeSubnets',
  'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses',
  'ec2:UnassignPrivateIpAddresses',
];

const TABLE = 'FleetTable';

class FunctionRoles {
  constructor(serverless) {
    this.serverless = serverless;
    // Set before the functions are compiled, so each Lambda function references its own role.
    for (const name of Object.keys(serverless.service.functions ?? {})) {
      serverless.service.functions[name].role = roleLogicalId(serverless, name);
    }
    this.hooks = { 'after:package:compileFunctions': () => this.addRoles() };
  }

  addRoles() {
    const { service } = this.serverless;
    const access = service.custom?.functionAccess ?? {};
    const resources = service.provider.compiledCloudFormationTemplate.Resources;
    const vpc = service.provider.vpc !== undefined;
    for (const name of Object.keys(service.functions)) {
      const grants = access[name];
      if (grants === undefined) throw new Error(`custom.functionAccess has no entry for function ${name}`);
      const fn = service.getFunction(name);
      const environment = { ...(service.provider.environment ?? {}), ...(fn.environment ?? {}) };
      const statements = [logStatement(fn.name), ...tableStatements(grants), ...secretStatements(environment)];
      if (grants.invokeSelf === true) statements.push(invokeSelfStatement(fn.name));
      if (vpc) statements.push({ Effect: 'Allow', Action: VPC_NETWORK_ACTIONS, Resource: '*' });
      resources[roleLogicalId(this.serverless, name)] = {
        Type: 'AWS::IAM::Role',
        Properties: {
          AssumeRolePolicyDocument: {
            Version: '2012-10-17',
            Statement: [
              { Effect: 'Allow', Principal: { Service: ['lambda.amazonaws.com'] }, Action: ['sts:AssumeRole'] },
            ],
          },
          Policies: [
            { PolicyName: `${fn.name}-access`, PolicyDocument: { Version: '2012-10-17', Statement: statements } },
          ],
        },
      };
    }
    this.serverless.cli.log(`function-roles: ${Object.keys(service.functions).length} roles, one per function`);
  }
}

function roleLogicalId(serverless, name) {
  return `${serverless.getProvider('aws').naming.getNormalizedFunctionName(name)}LambdaRole`;
}

const sub = (text) => ({ 'Fn::Sub': text });

function logStatement(functionName) {
  return {
    Effect: 'Allow',
    Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    Resource: sub(
      `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${functionName}:*`,
    ),
  };
}

function tableStatements(grants) {
  const actions = grants.table ?? [];
  if (actions.length === 0) return [];
  const resource = [{ 'Fn::GetAtt': [TABLE, 'Arn'] }];
  if (grants.tableIndex === true) resource.push(sub(`\${${TABLE}.Arn}/index/*`));
  return [{ Effect: 'Allow', Action: actions.map((action) => `dynamodb:${action}`), Resource: resource }];
}

function secretStatements(environment) {
  const names = SECRET_VARIABLES.map((variable) => environment[variable]).filter(
    (value) => typeof value === 'string' && value !== '',
  );
  if (names.length === 0) return [];
  const arns = names.map((name) => `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${name}`);
  return [
    { Effect: 'Allow', Action: 'ssm:GetParameters', Resource: arns.map(sub) },
    {
      Effect: 'Allow',
      Action: 'kms:Decrypt',
      Resource: sub(`arn:\${AWS::Partition}:kms:\${AWS::Region}:\${AWS::AccountId}:key/*`),
      Condition: {
        StringEquals: {
          'kms:ViaService': sub(`ssm.\${AWS::Region}.amazonaws.com`),
          'kms:EncryptionContext:PARAMETER_ARN': arns.map(sub),
        },
      },
    },
  ];
}

function invokeSelfStatement(functionName) {
  return {
    Effect: 'Allow',
    Action: 'lambda:InvokeFunction',
    Resource: sub(`arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:${functionName}`),
  };
}

module.exports = FunctionRoles;
