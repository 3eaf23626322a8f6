/**
 * `POST /api/push` and `POST /api/create` (lib/features/model-admin/serve-unrouted-admin): answered 501
 * with what to do instead; the push names the online nodes that hold the model, from the snapshot its
 * registry gives. Create reads nothing of the fleet.
 */
import { describe, expect, it } from '@jest/globals';
import { serveCreate, servePush } from '../../../../lib/features/model-admin/serve-unrouted-admin';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { makeNodeModel, makeNodeRecord, snapshotOf, T0 } from '../../../helpers/factories';

const llama = makeNodeModel({ name: 'llama3.2:latest' });
const fleet = snapshotOf([
  makeNodeRecord({ id: 'b', models: [llama] }),
  makeNodeRecord({ id: 'a', models: [llama] }),
  makeNodeRecord({ id: 'gone', lastSeenAt: T0 - 60_000, models: [llama] }),
  makeNodeRecord({ id: 'other', models: [] }),
]);
const registry = { snapshot: async () => fleet };

function post(path: string, body: object) {
  return toHttpRequest(makeHttpEvent({ method: 'POST', path, body }));
}

describe('servePush', () => {
  it('answers 501 naming the online nodes that hold the model, an untagged name matching :latest', async () => {
    const { sink } = createBufferedSink();

    await expect(servePush({ registry }, post('/api/push', { model: 'llama3.2' }), sink)).rejects.toMatchObject({
      status: 501,
      code: 'not_implemented',
      message: expect.stringContaining('(it is on a, b): OLLAMA_HOST=<node address> ollama push llama3.2'),
    });
    expect(sink.started).toBe(false);
  });

  it('says so when no node holds the model now', async () => {
    const { sink } = createBufferedSink();

    await expect(servePush({ registry }, post('/api/push', { name: 'qwen3:8b' }), sink)).rejects.toMatchObject({
      status: 501,
      message: expect.stringContaining('(no node holds it now)'),
    });
  });
});

describe('serveCreate', () => {
  it('answers 501 saying to create the model on a node, and to copy for a new name', async () => {
    const { sink } = createBufferedSink();

    await expect(serveCreate(post('/api/create', { model: 'mine' }), sink)).rejects.toMatchObject({
      status: 501,
      code: 'not_implemented',
      message: expect.stringMatching(/ollama create mine -f Modelfile.*use \/api\/copy$/),
    });
  });
});
