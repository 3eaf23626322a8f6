import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { readRouteTable } from '../../../emulator/routes';
import type { RouteTable } from '../../../lib/http/handler';

const table = readRouteTable(join(__dirname, '..', '..', '..', 'serverless.yml'));

async function routesOf(name: string): Promise<RouteTable> {
  const module = (await import(`../../../functions/${name}`)) as { routes?: RouteTable };
  if (module.routes === undefined) throw new Error(`functions/${name}.ts exports no routes`);
  return module.routes;
}

describe('serverless.yml and the handlers', () => {
  it('lists a handler bundle for every function', () => {
    expect(table.functions.length).toBeGreaterThan(0);
    for (const fn of table.functions) expect(fn.file).toMatch(new RegExp(`dist/functions/${fn.name}/index\\.js$`));
  });

  it.each(table.functions.filter((fn) => !fn.scheduled).map((fn) => fn.name))(
    'routes exactly the http events of %s',
    async (name) => {
      const declared = table.routes
        .filter((route) => route.function.name === name)
        .map((route) => `${route.method} ${route.pattern.template}`)
        .sort();

      const handled = Object.keys(await routesOf(name)).sort();

      expect(handled).toEqual(declared);
    },
  );

  it('schedules the poller', () => {
    expect(table.functions.filter((fn) => fn.scheduled).map((fn) => fn.name)).toEqual(['poller']);
  });
});
