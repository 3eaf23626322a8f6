// The part of @opentelemetry/otlp-transformer the router uses, bundled as dist/vendor/@opentelemetry/
// otlp-transformer (scripts/build.mjs): the protobuf trace serializer, 34 KB minified. The package's index
// also loads the JSON, metrics and logs serializers and, through them, OpenTelemetry's core and metrics
// SDK: 252 KB (ARCHITECTURE.md §3.14). lib/services/telemetry/otlp-encoding reads this one name, which the
// index exports alike, so the emulator (the whole package from node_modules) runs the same code.
'use strict';

module.exports = {
  ProtobufTraceSerializer: require('@opentelemetry/otlp-transformer/build/src/trace/protobuf').ProtobufTraceSerializer,
};
