import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { readRouteTable } from '../../emulator/routes';
import { getServices, type Services } from '../../lib/instance';
import type { RouteTable } from '../../lib/services/http/handler';

const table = readRouteTable(join(__dirname, '..', '..', 'serverless.yml'));

async function routesOf(name: string): Promise<RouteTable> {
  const module = (await import(`../../functions/${name}`)) as { routes?: (services: Services) => RouteTable };
  if (module.routes === undefined) throw new Error(`functions/${name}.ts exports no routes`);
  return module.routes(getServices());
}

describe('serverless.yml and the handlers', () => {
  it('lists a handler bundle for every function', () => {
    expect(table.functions.length).toBeGreaterThan(0);
    for (const fn of table.functions) expect(fn.file).toMatch(new RegExp(`dist/functions/${fn.name}/index\\.js$`));
  });

  it.each(table.functions.filter((fn) => !fn.scheduled).map((fn) => fn.name))(
    'routes exactly the http events of %s',
    async (name) => {
      // Preflights (OPTIONS) and the catch-all (`ANY /{proxy+}`) are answered by the wrapper, not by a route.
      const declared = table.routes
        .filter((route) => route.function.name === name && route.method !== 'OPTIONS' && route.method !== 'ANY')
        .map((route) => `${route.method} ${route.pattern.template}`)
        .sort();

      const handled = Object.keys(await routesOf(name)).sort();

      expect(handled).toEqual(declared);
    },
  );

  it('takes OPTIONS on every path, at the function that serves the path (CORS preflights)', () => {
    const byPath = new Map<string, Set<string>>();
    for (const route of table.routes) {
      const key = route.pattern.template;
      byPath.set(key, (byPath.get(key) ?? new Set()).add(`${route.method} ${route.function.name}`));
    }
    for (const [path, entries] of byPath) {
      const functions = new Set([...entries].map((entry) => entry.split(' ')[1]));
      const preflight = [...entries].filter((entry) => /^(OPTIONS|ANY) /.test(entry));
      expect({ path, preflight: preflight.length, functions: functions.size }).toEqual({
        path,
        preflight: 1,
        functions: 1,
      });
    }
  });

  it('sends every path no route has to one function, whose wrapper answers it', () => {
    expect(table.routes.filter((route) => route.method === 'ANY').map((route) => route.function.name)).toEqual([
      'ollama',
    ]);
    expect(table.routes.filter((route) => route.method === 'ANY').map((route) => route.pattern.template)).toEqual([
      '/{proxy+}',
    ]);
  });

  it('marks every route that changes the fleet operatorRoute, and every other write says what it is (issue 46)', async () => {
    // The writes that route a request to a model, or a node agent's heartbeat: not changes to the fleet.
    const notChanges = new Set([
      'POST /api/show',
      'POST /api/chat',
      'POST /api/generate',
      'POST /api/embed',
      'POST /api/embeddings',
      'POST /v1/chat/completions',
      'POST /v1/responses',
      'POST /v1/embeddings',
      'POST /v1/rerank',
      'POST /v1/images/generations',
      'POST /v1/messages',
      'POST /v1/messages/count_tokens',
      'POST /api/generate-image',
      'POST /api/transcribe',
      'POST /heartbeat',
      'POST /fleet/heartbeat',
    ]);
    const changes = [
      'POST /api/pull',
      'DELETE /api/delete',
      'POST /api/copy',
      'POST /api/create',
      'POST /api/push',
      'POST /dashboard/api/settings',
      'POST /dashboard/api/benchmarks/start',
      'POST /dashboard/api/benchmarks/cancel',
      'POST /dashboard/api/pull',
      'POST /dashboard/api/delete',
    ];
    const marked: string[] = [];
    const unclassified: string[] = [];
    for (const fn of table.functions.filter((entry) => !entry.scheduled)) {
      for (const [key, route] of Object.entries(await routesOf(fn.name))) {
        const credential = typeof route === 'function' ? 'client' : route.credential;
        if (credential === 'operator') marked.push(key);
        else if (!key.startsWith('GET ') && !key.startsWith('HEAD ') && !notChanges.has(key)) unclassified.push(key);
      }
    }

    expect(marked.sort()).toEqual([...changes].sort());
    expect(unclassified).toEqual([]);
  });

  it('schedules the poller', () => {
    expect(table.functions.filter((fn) => fn.scheduled).map((fn) => fn.name)).toEqual(['poller']);
  });
});
