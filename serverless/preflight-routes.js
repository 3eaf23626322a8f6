/**
 * Serverless Framework v3 plugin: browsers send a CORS preflight (`OPTIONS`) before a cross-origin call
 * with an API key or a JSON body (spec §4.8), and a REST API answers a method it does not list with 403
 * before any function runs. So every path a function serves also takes OPTIONS, routed to that same
 * function, whose wrapper answers it (lib/services/http/cors.ts) — or, with FLEET_CORS_ORIGINS unset, answers
 * 405 as for any method a route does not take. serverless.yml lists each route once; the emulator
 * (emulator/routes.ts) adds the same OPTIONS routes when it reads the file.
 */

class PreflightRoutes {
  constructor(serverless) {
    // Added before anything reads the events: `package` compiles them, serverless-offline serves them.
    const count = addPreflightEvents(serverless.service.functions ?? {});
    this.hooks = {
      'before:package:compileEvents': () => serverless.cli.log(`preflight-routes: ${count} OPTIONS methods added`),
    };
  }
}

/** Adds `OPTIONS <path>` to each function for each of its paths that lacks one; returns how many. */
function addPreflightEvents(functions) {
  let count = 0;
  for (const definition of Object.values(functions)) {
    const events = definition.events ?? [];
    for (const path of pathsWithoutOptions(events)) {
      events.push({ http: { method: 'OPTIONS', path } });
      count += 1;
    }
  }
  return count;
}

/** `GET /api/tags` or `{ method, path }` → its parts. */
function httpParts(http) {
  if (typeof http === 'string') {
    const [method, path] = http.trim().split(/\s+/);
    return { method: method.toUpperCase(), path };
  }
  return { method: String(http.method).toUpperCase(), path: http.path };
}

/** The paths of a function's http events that take neither OPTIONS nor ANY yet, each once. */
function pathsWithoutOptions(events) {
  const paths = new Map();
  for (const event of events) {
    if (event?.http === undefined) continue;
    const { method, path } = httpParts(event.http);
    const covered = method === 'OPTIONS' || method === 'ANY';
    paths.set(path, (paths.get(path) ?? false) || covered);
  }
  return [...paths].filter(([, covered]) => !covered).map(([path]) => path);
}

module.exports = PreflightRoutes;
