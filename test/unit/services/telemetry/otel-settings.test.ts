import { describe, expect, it } from '@jest/globals';
import { parseOtelSettings } from '../../../../lib/services/telemetry/otel-settings';

describe('parseOtelSettings', () => {
  it('exports nothing without an endpoint, or when the SDK or the traces exporter is turned off', () => {
    expect(parseOtelSettings({})).toBeUndefined();
    expect(parseOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
    expect(
      parseOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined();
    expect(
      parseOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });

  it('takes the specification defaults, the traces path under the general endpoint', () => {
    expect(parseOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      headers: {},
      compression: 'none',
      timeoutMs: 10_000,
      resource: { 'service.name': 'fleet-router' },
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      scheduleDelayMs: 5000,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
    });
  });

  it('prefers the traces variables to the general ones', () => {
    const settings = parseOtelSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://xray.us-east-1.amazonaws.com/v1/traces',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=general,x-tenant=a%20b',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=traces',
      OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });

    expect(settings).toMatchObject({
      url: 'https://xray.us-east-1.amazonaws.com/v1/traces',
      headers: { 'x-api-key': 'traces', 'x-tenant': 'a b' },
      timeoutMs: 2000,
      compression: 'gzip',
    });
  });

  it('names the service and the resource, the service name over the attributes', () => {
    const settings = parseOtelSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored, deployment.environment.name=prod',
      OTEL_SERVICE_NAME: 'router-eu',
    });

    expect(settings?.resource).toEqual({ 'service.name': 'router-eu', 'deployment.environment.name': 'prod' });
  });

  it('reads the batch settings and the sampler, a batch never larger than the queue', () => {
    const settings = parseOtelSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_BSP_MAX_QUEUE_SIZE: '10',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '50',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });

    expect(settings).toMatchObject({
      scheduleDelayMs: 100,
      maxQueueSize: 10,
      maxExportBatchSize: 10,
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'],
    [{ OTEL_BSP_MAX_QUEUE_SIZE: 'many' }, 'OTEL_BSP_MAX_QUEUE_SIZE'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'secret-without-a-key' }, 'OTEL_EXPORTER_OTLP_HEADERS'],
  ])('refuses a value that cannot mean anything, naming its variable (%o)', (env, name) => {
    expect(() => parseOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...env })).toThrow(name);
  });

  it('never repeats the headers, which carry credentials, in its error', () => {
    expect(() =>
      parseOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'token' }),
    ).toThrow(/^(?!.*token).*$/);
  });
});
