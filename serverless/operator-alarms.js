/**
 * Serverless Framework v3 plugin: the CloudWatch alarms an operator of the router wants, each notifying
 * `custom.alarms.topicArn` when set (an SNS topic; unset, they only show in the console):
 *
 * - the API answers 5xx to more than 5% of requests, two 5-minute periods out of three;
 * - a function errors (5 or more in 5 minutes) or is throttled at all (its concurrency is exhausted);
 * - the table throttles writes or fails requests with system errors (its write-behind retries, and gives
 *   up after its deadline: a trace or a rollup is lost).
 *
 * About $0.10 a month each (standard resolution): 18 alarms for seven functions.
 */

const PERIOD_SECONDS = 300;

/** The table operations the functions issue (custom.functionAccess), for its SystemErrors metric. */
const TABLE_OPERATIONS = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchWriteItem'];

class OperatorAlarms {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:package:compileEvents': () => this.addAlarms() };
  }

  addAlarms() {
    const { service } = this.serverless;
    const naming = this.serverless.getProvider('aws').naming;
    const topic = service.custom?.alarms?.topicArn ?? '';
    const actions = topic === '' ? {} : { AlarmActions: [topic], OKActions: [topic] };
    const alarms = {
      ApiServerErrorRateAlarm: apiServerErrorRate(naming.getApiGatewayName()),
      TableWriteThrottlesAlarm: tableAlarm('WriteThrottleEvents', 'the table throttled writes'),
      TableSystemErrorsAlarm: tableSystemErrors(),
    };
    for (const name of Object.keys(service.functions)) {
      const functionName = service.getFunction(name).name;
      const id = naming.getNormalizedFunctionName(name);
      alarms[`${id}ErrorsAlarm`] = functionAlarm(functionName, 'Errors', 5, `${functionName} failed 5 or more times`);
      alarms[`${id}ThrottlesAlarm`] = functionAlarm(functionName, 'Throttles', 1, `${functionName} was throttled`);
    }
    const resources = service.provider.compiledCloudFormationTemplate.Resources;
    for (const [id, properties] of Object.entries(alarms)) {
      resources[id] = {
        Type: 'AWS::CloudWatch::Alarm',
        Properties: { TreatMissingData: 'notBreaching', ...actions, ...properties },
      };
    }
    this.serverless.cli.log(
      `operator-alarms: ${Object.keys(alarms).length} alarms${topic === '' ? ' (no topic)' : ''}`,
    );
  }
}

function apiServerErrorRate(apiName) {
  return {
    AlarmDescription: 'More than 5% of API requests answered 5xx',
    Namespace: 'AWS/ApiGateway',
    MetricName: '5XXError',
    Dimensions: [{ Name: 'ApiName', Value: apiName }],
    // 5XXError is 0 or 1 per request: its average is the rate.
    Statistic: 'Average',
    Period: PERIOD_SECONDS,
    EvaluationPeriods: 3,
    DatapointsToAlarm: 2,
    Threshold: 0.05,
    ComparisonOperator: 'GreaterThanThreshold',
  };
}

function functionAlarm(functionName, metric, threshold, description) {
  return {
    AlarmDescription: description,
    Namespace: 'AWS/Lambda',
    MetricName: metric,
    Dimensions: [{ Name: 'FunctionName', Value: functionName }],
    Statistic: 'Sum',
    Period: PERIOD_SECONDS,
    EvaluationPeriods: 1,
    Threshold: threshold,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  };
}

function tableAlarm(metric, description) {
  return {
    AlarmDescription: description,
    Namespace: 'AWS/DynamoDB',
    MetricName: metric,
    Dimensions: [{ Name: 'TableName', Value: { Ref: 'FleetTable' } }],
    Statistic: 'Sum',
    Period: PERIOD_SECONDS,
    EvaluationPeriods: 1,
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  };
}

/** SystemErrors is published per operation: their sum. */
function tableSystemErrors() {
  const metrics = TABLE_OPERATIONS.map((operation, index) => ({
    Id: `m${index}`,
    ReturnData: false,
    MetricStat: {
      Metric: {
        Namespace: 'AWS/DynamoDB',
        MetricName: 'SystemErrors',
        Dimensions: [
          { Name: 'TableName', Value: { Ref: 'FleetTable' } },
          { Name: 'Operation', Value: operation },
        ],
      },
      Period: PERIOD_SECONDS,
      Stat: 'Sum',
    },
  }));
  return {
    AlarmDescription: 'the table failed requests with system errors (HTTP 500)',
    Metrics: [{ Id: 'errors', Expression: 'SUM(METRICS())', Label: 'SystemErrors', ReturnData: true }, ...metrics],
    EvaluationPeriods: 1,
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
  };
}

module.exports = OperatorAlarms;
