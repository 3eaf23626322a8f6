/**
 * `POST /api/transcribe` through `functions/media` in process, on both hosts: the order of the answers
 * (503 while off, 400 for a bad upload, 404 without an ASR model), the runtime switch, the sidecar job
 * protocol against simulated node agents (completed, failed, too slow, node down, a 5xx retried on
 * another node and model) and the trace. The services run on an in-process table; heartbeats go through
 * `functions/fleet` as an agent sends them. Raw HTTP through the built emulator: test/e2e/transcription.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type SimAgent, startSimAgent } from '../../emulator/sim';
import { routes as fleetRoutes } from '../../functions/fleet';
import { routes as mediaRoutes } from '../../functions/media';
import type { Trace } from '../../lib/core/analytics/trace-record';
import {
  createTranscriptionRoute,
  TRANSCRIPTION_DISABLED_MESSAGE,
} from '../../lib/features/transcription/serve-transcription';
import { NO_ASR_MODEL_MESSAGE } from '../../lib/features/transcription/transcription-routing';
import { getServices, initServices, type Services } from '../../lib/instance';
import type { TracePage } from '../../lib/services/analytics/trace';
import { createBufferedHandler, type RouteTable } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { dayOf } from '../../lib/services/store/keys';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';
import { type EncodedUpload, encodeUpload, wavFile } from '../helpers/upload-form';

let store: StoreFixture;
let services: Services;
/** `asr-a`: qwen3-asr. `asr-b`: qwen3-asr and whisper-small. `asr-slow`: zz-slow-asr, which never finishes in time. */
let agents: Record<'a' | 'b' | 'slow', SimAgent>;

/** The route with quick polls and a 1.5 s job time-out, so failures show fast. */
const transcribe = createTranscriptionRoute({ jobTimeoutMs: 1500, pollDelaysMs: { first: 10, max: 40 } });
const quickRoutes: RouteTable = {
  'POST /api/transcribe': (request, response) => transcribe(getServices(), request, response),
};

function uploadEvent(upload: EncodedUpload, headers: Record<string, string> = {}) {
  return makeHttpEvent({
    method: 'POST',
    path: '/api/transcribe',
    headers: { 'Content-Type': upload.contentType, ...headers },
    body: upload.body,
  });
}

/** A spoken phrase: the simulated sidecar transcribes printable text to itself. */
function speech(text: string, extra: readonly (readonly [string, string])[] = []): Promise<EncodedUpload> {
  return encodeUpload([['audio', Buffer.from(text), 'phrase.txt'], ...extra], 'text/plain');
}

async function buffered(routes: RouteTable, upload: EncodedUpload, headers: Record<string, string> = {}) {
  const result = await createBufferedHandler(routes)(uploadEvent(upload, headers));
  return {
    status: result.statusCode,
    headers: result.headers,
    body: JSON.parse(result.body) as Record<string, unknown>,
  };
}

async function heartbeat(agent: SimAgent): Promise<void> {
  const event = makeHttpEvent({ method: 'POST', path: '/heartbeat', body: agent.payload(), sourceIp: '127.0.0.1' });
  const reply = await createBufferedHandler(fleetRoutes(services))(event);
  expect(reply.statusCode).toBe(200);
}

async function tracesTagged(tag: string): Promise<Trace[]> {
  await services.writeBehind.flush();
  const pages = await store.table.queryDocs(`TRACE#${dayOf(Date.now())}`);
  const traces = pages.flatMap((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces);
  return traces.filter((trace) => trace.tags.includes(tag));
}

beforeAll(async () => {
  store = await startStore('transcription');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  const agent = (nodeId: string, models: readonly string[], jobMs: number) =>
    startSimAgent({
      nodeId,
      ollamaOptions: { id: nodeId, models: [] },
      transcription: models.map((name) => ({ name })),
      transcriptionJobMs: jobMs,
    });
  agents = {
    a: await agent('asr-a', ['qwen3-asr'], 20),
    b: await agent('asr-b', ['qwen3-asr', 'whisper-small'], 20),
    slow: await agent('asr-slow', ['zz-slow-asr'], 60_000),
  };
});

afterAll(async () => {
  await closeServices(services);
  await Promise.all(Object.values(agents).map((agent) => agent.stop()));
  await store.close();
});

describe('POST /api/transcribe', () => {
  describe('while transcription is off (the default)', () => {
    describe.each(HOSTS)('%s host', (_name, host) => {
      it('answers 503 saying how to turn it on, before reading the upload', async () => {
        const json = makeHttpEvent({ method: 'POST', path: '/api/transcribe', body: { audio: 'x' } });

        const reply = await host(mediaRoutes(services), json);

        expect(JSON.parse(reply.body)).toEqual({ error: TRANSCRIPTION_DISABLED_MESSAGE });
        expect(reply.statusCode).toBe(503);
      });
    });

    it('marks the 503 as one a client retry cannot fix', async () => {
      const reply = await buffered(mediaRoutes(services), await speech('hello'));

      expect(reply.status).toBe(503);
      expect(reply.headers['x-should-retry']).toBe('false');
      // A 503 no retry can fix names no time to come back (the two headers agree).
      expect(reply.headers['retry-after']).toBeUndefined();
      expect(TRANSCRIPTION_DISABLED_MESSAGE).toContain('FLEET_TRANSCRIPTION=true');
      expect(TRANSCRIPTION_DISABLED_MESSAGE).toContain('POST /dashboard/api/settings {"transcription": true}');
    });
  });

  describe('with no ASR model on the fleet', () => {
    beforeAll(async () => {
      await services.settings.update({ transcription: true });
    });

    it('answers 404 with how to install one', async () => {
      const reply = await buffered(mediaRoutes(services), await speech('hello'));

      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: NO_ASR_MODEL_MESSAGE });
    });
  });

  describe('once switched on at run time, with node agents reporting ASR models', () => {
    // The handler logs every 502 it answers; these tests provoke them on purpose.
    const logged = jest.spyOn(console, 'error');

    beforeAll(async () => {
      logged.mockImplementation(() => undefined);
      for (const agent of Object.values(agents)) await heartbeat(agent);
      await services.registry.refresh();
    });

    afterAll(() => {
      logged.mockRestore();
    });

    it('answers the transcript with the node, model and time headers', async () => {
      const reply = await buffered(mediaRoutes(services), await speech('the rain in Spain', [['model', 'qwen3-asr']]));

      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        text: 'the rain in Spain',
        language: 'en',
        duration_s: expect.any(Number),
        chunks: [{ text: 'the rain in Spain', start: 0, end: expect.any(Number), chunk_index: 0, language: 'en' }],
      });
      expect(['asr-a', 'asr-b']).toContain(reply.headers['x-fleet-node']);
      expect(reply.headers['x-fleet-model']).toBe('qwen3-asr');
      expect(reply.headers['x-fleet-score']).toMatch(/^-?\d+(\.\d)?$/);
      expect(Number(reply.headers['x-transcription-time'])).toBeGreaterThanOrEqual(20);
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('goes to the node that has the model the client named', async () => {
      const reply = await buffered(quickRoutes, await speech('named model', [['model', 'whisper-small']]));

      expect(reply.status).toBe(200);
      expect(reply.headers['x-fleet-node']).toBe('asr-b');
      expect(reply.headers['x-fleet-model']).toBe('whisper-small');
    });

    it('answers 404 for a model no node has', async () => {
      const reply = await buffered(quickRoutes, await speech('hello', [['model', 'whisper-huge']]));

      expect(reply.status).toBe(404);
      expect(reply.body['error']).toMatch(/^model 'whisper-huge' not found on any node/);
    });

    it('answers a model name with a control character with 400 naming model, and asks no node', async () => {
      const reply = await buffered(quickRoutes, await speech('hello', [['model', 'whisper-small\u0007']]));

      expect(reply.status).toBe(400);
      expect(reply.body['error']).toMatch(/^model: contains the control character U\+0007/);
    });

    describe.each(HOSTS)('%s host', (_name, host) => {
      it('transcribes an upload that names no model', async () => {
        const reply = await host(quickRoutes, uploadEvent(await speech('any model will do')));

        expect(JSON.parse(reply.body)).toMatchObject({ text: 'any model will do' });
        expect(reply.statusCode).toBe(200);
      });

      it.each([
        ['a JSON body', { contentType: 'application/json', body: Buffer.from('{"audio":"x"}') }, /must be multipart/],
        [
          'a multipart body without a boundary',
          { contentType: 'multipart/form-data', body: Buffer.from('x') },
          /Boundary not found/,
        ],
        [
          'a body that does not match its boundary',
          { contentType: 'multipart/form-data; boundary=abc', body: Buffer.from('--xyz\r\n\r\n--xyz--') },
          /malformed: Unexpected end of multipart data/,
        ],
      ])('answers %s with 400 in the Ollama error shape', async (_case, upload, message) => {
        const reply = await host(quickRoutes, uploadEvent(upload));

        expect(Object.keys(JSON.parse(reply.body))).toEqual(['error']);
        expect(JSON.parse(reply.body).error).toMatch(message);
        expect(reply.statusCode).toBe(400);
      });

      it.each([
        ['no audio file', [['model', 'qwen3-asr']], /^no audio file/],
        ['an empty audio file', [['audio', Buffer.alloc(0)]], /^the audio file is empty$/],
        [
          'two files',
          [
            ['audio', wavFile(0.1)],
            ['audio', wavFile(0.1), 'two.wav'],
          ],
          /more than 1 file/,
        ],
      ] as const)('answers an upload with %s with 400', async (_case, fields, message) => {
        const reply = await host(quickRoutes, uploadEvent(await encodeUpload(fields)));

        expect(JSON.parse(reply.body).error).toMatch(message);
        expect(reply.statusCode).toBe(400);
      });
    });

    it("answers 502 with the node's error when the job fails", async () => {
      agents.b.transcription?.failNextJob('unsupported audio codec');

      const reply = await buffered(quickRoutes, await speech('broken', [['model', 'whisper-small']]));

      expect(reply.status).toBe(502);
      expect(reply.body).toEqual({ error: 'transcription failed on node asr-b: unsupported audio codec' });
      expect(reply.headers['x-should-retry']).toBe('false');
    });

    it('answers 502 when the job does not finish within the time-out', async () => {
      const reply = await buffered(quickRoutes, await speech('very long', [['model', 'zz-slow-asr']]));

      expect(reply.status).toBe(502);
      expect(reply.body).toEqual({ error: 'transcription on node asr-slow did not finish within 1.5 s' });
    });

    it('answers 502 when the only node with the model cannot be reached', async () => {
      await agents.b.transcription?.faults.refuseConnections(true);
      try {
        const reply = await buffered(quickRoutes, await speech('hello?', [['model', 'whisper-small']]));

        expect(reply.status).toBe(502);
        expect(reply.body['error']).toMatch(/^speech-to-text failed: .*asr-b: refused the connection$/);
      } finally {
        await agents.b.transcription?.faults.refuseConnections(false);
      }
    });

    it("passes a sidecar's refusal of the upload on with its status and words", async () => {
      agents.b.transcription?.faults.failNext(1, 413);

      const reply = await buffered(quickRoutes, await speech('too long', [['model', 'whisper-small']]));

      expect(reply.status).toBe(413);
      expect(reply.body).toEqual({ error: 'simulated failure' });
    });

    it('answers 502, not 404, when the sidecar has no /transcribe', async () => {
      agents.b.transcription?.faults.failNext(1, 404);

      const reply = await buffered(quickRoutes, await speech('where?', [['model', 'whisper-small']]));

      expect(reply.status).toBe(502);
      expect(reply.body).toEqual({ error: "node asr-b's speech-to-text sidecar answered 404" });
    });

    it('retries a 5xx on another node, then on another ASR model, and traces it as transcription', async () => {
      agents.a.transcription?.faults.failNext(1, 500);
      agents.b.transcription?.faults.failNext(1, 503);

      const reply = await buffered(quickRoutes, await speech('third time lucky', [['user', 'ada']]), {
        'X-Service-Tags': 'unit:transcription-retry',
      });

      expect(reply.status).toBe(200);
      expect(reply.body['text']).toBe('third time lucky');
      expect(reply.headers['x-fleet-node']).toBe('asr-b');
      expect(reply.headers['x-fleet-model']).toBe('whisper-small');
      expect(reply.headers['x-fleet-fallback']).toBe('whisper-small');
      expect(reply.headers['x-fleet-retries']).toBe('2');
      const traces = await tracesTagged('unit:transcription-retry');
      expect(traces.find((trace) => trace.status === 'completed')).toMatchObject({
        style: 'transcription',
        requestedModel: 'qwen3-asr',
        servedModel: 'whisper-small',
        nodeId: 'asr-b',
        fallbackModel: 'whisper-small',
        retries: 2,
        tags: ['unit:transcription-retry', 'user:ada'],
      });
      expect(
        traces
          .filter((trace) => trace.status === 'retried')
          .map((trace) => trace.nodeId)
          .sort(),
      ).toEqual(['asr-a', 'asr-b']);
    });
  });
});
