import { describe, expect, it } from '@jest/globals';
import { encodeSpans } from '../../../../lib/services/telemetry/otlp-encoding';

interface ExportTraceServiceRequest {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: object): unknown;
}

/** OpenTelemetry's generated protobuf root of the OTLP definitions (opentelemetry-proto). */
const root = require('@opentelemetry/otlp-proto-exporter-base/build/src/generated/root') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ExportTraceServiceRequest } } } } };
};
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

const base64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

describe('encodeSpans', () => {
  it('encodes spans as an OTLP export request that the official definitions decode', () => {
    const bytes = encodeSpans(
      [
        {
          name: 'chat llama3.2',
          attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.output_tokens': 12, 'fleet.tags': ['a', 'b'] },
          startMs: 1_764_115_200_250,
          endMs: 1_764_115_201_000,
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          spanId: '1111111111111111',
          parentSpanId: '00f067aa0ba902b7',
          parentRemote: true,
        },
        {
          name: 'chat llama3.2:3b',
          attributes: { 'error.type': '_OTHER' },
          error: 'refused',
          startMs: 1_764_115_200_250,
          endMs: 1_764_115_200_500,
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
          spanId: '2222222222222222',
          parentSpanId: '1111111111111111',
          parentRemote: false,
        },
      ],
      { 'service.name': 'fleet-router' },
    );

    const decoded = Request.toObject(Request.decode(bytes), { longs: String, bytes: String, defaults: false });

    expect(decoded).toEqual({
      resourceSpans: [
        {
          resource: {
            attributes: [{ key: 'service.name', value: { stringValue: 'fleet-router' } }],
            droppedAttributesCount: 0,
          },
          scopeSpans: [
            {
              scope: { name: 'fleet-router' },
              spans: [
                expect.objectContaining({
                  traceId: base64('4bf92f3577b34da6a3ce929d0e0e4736'),
                  spanId: base64('1111111111111111'),
                  parentSpanId: base64('00f067aa0ba902b7'),
                  name: 'chat llama3.2',
                  kind: 3,
                  startTimeUnixNano: '1764115200250000000',
                  endTimeUnixNano: '1764115201000000000',
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                    { key: 'gen_ai.usage.output_tokens', value: { intValue: '12' } },
                    {
                      key: 'fleet.tags',
                      value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } },
                    },
                  ],
                  status: { code: 0 },
                }),
                expect.objectContaining({
                  spanId: base64('2222222222222222'),
                  parentSpanId: base64('1111111111111111'),
                  status: { code: 2, message: 'refused' },
                }),
              ],
            },
          ],
        },
      ],
    });
  });
});
