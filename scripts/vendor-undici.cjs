// The part of undici the router uses, bundled as dist/vendor/undici (scripts/build.mjs): the Agent, its
// connector, and the request/stream API on every dispatcher. undici's own index also loads fetch,
// WebSocket, EventSource, the caches, the mocks and the proxy agents, ~3 times the code and ~170 M more
// instructions on the first call to a node of every cold container (ARCHITECTURE.md §6). The router
// calls `agent.request(...)` and `agent.dispatch(...)` (lib/services/node-client/node-http.ts), which
// undici's index gives every dispatcher in the same way as here, so the emulator (full undici from
// node_modules) runs the same calls.
'use strict';

const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const api = require('undici/lib/api');

Object.assign(Dispatcher.prototype, api);

module.exports = {
  Agent: require('undici/lib/dispatcher/agent'),
  buildConnector: require('undici/lib/core/connect'),
};
