/**
 * The AWS SDK's DynamoDB client, loaded on first use. It is most of a function bundle's load time
 * (about 80 ms of a cold start here); loading it when the table is first touched keeps module
 * initialisation small, and a handler that answers without the table never pays for it.
 */
export type DynamoSdk = typeof import('@aws-sdk/client-dynamodb');

let sdk: DynamoSdk | undefined;

export function dynamoSdk(): DynamoSdk {
  sdk ??= require('@aws-sdk/client-dynamodb') as DynamoSdk;
  return sdk;
}
