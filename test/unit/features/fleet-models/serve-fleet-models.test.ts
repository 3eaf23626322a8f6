/**
 * The fleet's model lists and `/api/show` as features (lib/features/fleet-models): each answers the pure
 * view of the snapshot its registry gives, read once per request; `/api/show` asks the node client it is
 * given with that snapshot. The registry and the node client are stand-ins; the views are tested in
 * test/unit/core/views.
 */
import { describe, expect, it } from '@jest/globals';
import type { FleetSnapshot } from '../../../../lib/core/fleet/node';
import { toApiPs } from '../../../../lib/core/views/api-ps';
import { toApiTags } from '../../../../lib/core/views/api-tags';
import { ollamaApiVersion } from '../../../../lib/core/views/api-version';
import {
  type FleetModelsDeps,
  servePs,
  serveTags,
  serveVersion,
} from '../../../../lib/features/fleet-models/serve-fleet-models';
import { serveShow } from '../../../../lib/features/fleet-models/serve-show';
import type { HttpRequest } from '../../../../lib/services/http/request';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink, type ResponseSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { smallFleet } from '../../../helpers/small-fleet';

function countingRegistry(snapshot: FleetSnapshot): FleetModelsDeps['registry'] & { reads: number } {
  const registry = {
    reads: 0,
    async snapshot() {
      registry.reads += 1;
      return snapshot;
    },
  };
  return registry;
}

type Serve<D> = (deps: D, request: HttpRequest, response: ResponseSink) => Promise<void>;

async function call<D>(serve: Serve<D>, deps: D, method: string, path: string, body?: object) {
  const { sink, result } = createBufferedSink();
  await serve(deps, toHttpRequest(makeHttpEvent({ method, path, ...(body === undefined ? {} : { body }) })), sink);
  const reply = result();
  return { statusCode: reply.statusCode, body: JSON.parse(reply.body) as unknown };
}

describe('the fleet model lists', () => {
  const snapshot = smallFleet();

  it.each([
    ['/api/tags', serveTags, toApiTags(snapshot)],
    ['/api/ps', servePs, toApiPs(snapshot)],
    ['/api/version', serveVersion, { version: ollamaApiVersion(snapshot) }],
  ] as const)('%s answers the view of the snapshot, read once', async (path, serve, view) => {
    const registry = countingRegistry(snapshot);

    const reply = await call(serve, { registry }, 'GET', path);

    expect(reply).toEqual({ statusCode: 200, body: JSON.parse(JSON.stringify(view)) });
    expect(registry.reads).toBe(1);
  });
});

describe('serveShow', () => {
  const snapshot = smallFleet();

  it('asks the node client with the snapshot, the trimmed name and verbose, and answers its reply', async () => {
    const asked: { snapshot: FleetSnapshot; name: string; verbose: boolean }[] = [];
    const showModel = async (given: FleetSnapshot, name: string, verbose: boolean) => {
      asked.push({ snapshot: given, name, verbose });
      return { modelfile: 'FROM llama' };
    };

    const reply = await call(serveShow, { registry: countingRegistry(snapshot), showModel }, 'POST', '/api/show', {
      name: ' llama3.2:3b ',
      verbose: true,
    });

    expect(asked).toEqual([{ snapshot, name: 'llama3.2:3b', verbose: true }]);
    expect(reply).toEqual({ statusCode: 200, body: { modelfile: 'FROM llama' } });
  });

  it('refuses a blank model with a 400 naming it, before the fleet is read', async () => {
    const registry = countingRegistry(snapshot);
    const showModel = async () => ({});

    await expect(call(serveShow, { registry, showModel }, 'POST', '/api/show', { model: '  ' })).rejects.toMatchObject({
      status: 400,
      param: 'model',
    });
    expect(registry.reads).toBe(0);
  });
});
