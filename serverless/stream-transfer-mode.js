/**
 * Serverless Framework v3 plugin: every function here is a streaming handler (lib/services/http/handler.ts), so
 * every REST API method must use API Gateway's response streaming integration. v3 has no setting for it,
 * so after the events are compiled this rewrites each AWS_PROXY integration: `ResponseTransferMode:
 * STREAM` and the `2021-11-15 … /response-streaming-invocations` URI (ARCHITECTURE.md §3.2).
 */

class StreamTransferMode {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'after:package:compileEvents': () => this.rewrite() };
  }

  rewrite() {
    const resources = this.serverless.service.provider.compiledCloudFormationTemplate.Resources;
    let count = 0;
    for (const resource of Object.values(resources)) {
      if (resource.Type !== 'AWS::ApiGateway::Method') continue;
      const integration = resource.Properties?.Integration;
      if (integration?.Type !== 'AWS_PROXY') continue;
      const functionLogicalId = findFunctionLogicalId(integration.Uri);
      if (functionLogicalId === undefined) continue;
      integration.ResponseTransferMode = 'STREAM';
      integration.Uri = {
        'Fn::Sub': `arn:\${AWS::Partition}:apigateway:\${AWS::Region}:lambda:path/2021-11-15/functions/\${${functionLogicalId}.Arn}/response-streaming-invocations`,
      };
      // Streams may run up to 15 minutes; the buffered 29 s cap does not apply.
      integration.TimeoutInMillis = 900000;
      count += 1;
    }
    this.serverless.cli.log(`stream-transfer-mode: ${count} methods stream their responses`);
  }
}

/** Finds the `XLambdaFunction` logical id inside the integration URI that v3 generated. */
function findFunctionLogicalId(uri) {
  const text = JSON.stringify(uri);
  const match = /"([A-Za-z0-9]+LambdaFunction)"/.exec(text);
  return match ? match[1] : undefined;
}

module.exports = StreamTransferMode;
