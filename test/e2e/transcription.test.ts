/**
 * Speech-to-text end to end (spec §4.5, §7; ARCHITECTURE.md §8.3): the built emulator in its own process with
 * `FLEET_TRANSCRIPTION=true`, and a node agent whose simulated speech-to-text sidecar runs the job
 * protocol, joined by heartbeat. Uploads go over raw HTTP as users send them — `fetch` with a `FormData`
 * (what `curl -F audio=@speech.wav` sends) and a hand-written multipart body written in pieces — and
 * every status code of the route is checked exactly. A second router without the setting answers 503.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_TRANSCRIPTION_MODELS, type SimAgent, startSimAgent } from '../../emulator/sim';
import { wavFile } from '../helpers/upload-form';
import { eventually, type RouterProcess, startRouter } from './router-process';

let router: RouterProcess;
let off: RouterProcess;
let agent: SimAgent | undefined;

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** What `curl -F audio=@<filename> [-F model=…]` sends, through fetch's own multipart encoder. */
async function upload(
  base: string,
  audio: Buffer | undefined,
  fields: Record<string, string> = {},
  filename = 'speech.wav',
): Promise<Reply> {
  const form = new FormData();
  if (audio !== undefined) form.append('audio', new Blob([audio], { type: 'audio/wav' }), filename);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return send(base, { method: 'POST', body: form });
}

async function send(base: string, init: RequestInit): Promise<Reply> {
  const response = await fetch(`${base}/api/transcribe`, init);
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** POSTs `parts` one write at a time (chunked transfer encoding) with `contentType`, over node:http. */
function rawPost(contentType: string, parts: readonly Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${router.url}/api/transcribe`);
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': contentType },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    request.on('error', reject);
    const writeNext = (index: number) => {
      const part = parts[index];
      if (part === undefined) {
        request.end();
        return;
      }
      request.write(part, () => setTimeout(() => writeNext(index + 1), 20));
    };
    writeNext(0);
  });
}

beforeAll(async () => {
  [router, off] = await Promise.all([
    startRouter({ FLEET_TRANSCRIPTION: 'true', FLEET_EJECT_BASE_MS: '1000' }),
    startRouter(),
  ]);
}, 30_000);

afterAll(async () => {
  await agent?.stop();
  await Promise.all([router?.stop(), off?.stop()]);
});

describe('POST /api/transcribe with transcription off', () => {
  it('answers 503 saying how to turn it on, with x-should-retry: false', async () => {
    const reply = await upload(off.url, wavFile(0.5));

    expect(reply.status).toBe(503);
    expect(reply.headers.get('x-should-retry')).toBe('false');
    expect(reply.body['error']).toMatch(/^speech-to-text is disabled: enable it with FLEET_TRANSCRIPTION=true/);
  });
});

describe('POST /api/transcribe with FLEET_TRANSCRIPTION=true', () => {
  it('answers 404 with an install hint while no node has an ASR model', async () => {
    const reply = await upload(router.url, wavFile(0.5));

    expect(reply.status).toBe(404);
    expect(reply.body['error']).toMatch(/^no node has a speech-to-text model installed: .*mlx-qwen3-asr/);
  });

  describe('with a node agent whose sidecar serves qwen3-asr', () => {
    beforeAll(async () => {
      agent = await startSimAgent({
        nodeId: 'studio',
        routerUrl: router.url,
        intervalMs: 60_000,
        ollamaOptions: { id: 'studio', models: [] },
        transcription: DEFAULT_TRANSCRIPTION_MODELS,
        transcriptionJobMs: 50,
      });
      await agent.sendHeartbeat();
      await eventually(async () => expect((await upload(router.url, wavFile(0.1))).status).toBe(200));
    }, 20_000);

    it('transcribes a WAV file sent as curl -F audio=@speech.wav, with the fleet headers', async () => {
      const audio = wavFile(1.5);

      const reply = await upload(router.url, audio);

      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(reply.body).toEqual({
        text: `This is a simulated transcript of speech.wav (${audio.length} bytes).`,
        language: 'en',
        duration_s: 1.5,
        chunks: [expect.objectContaining({ start: 0, end: 1.5, chunk_index: 0 })],
      });
      expect(reply.headers.get('x-fleet-node')).toBe('studio');
      expect(reply.headers.get('x-fleet-model')).toBe('qwen3-asr');
      expect(reply.headers.get('x-fleet-score')).not.toBeNull();
      expect(Number(reply.headers.get('x-transcription-time'))).toBeGreaterThanOrEqual(50);
    });

    it('transcribes a hand-written multipart body sent in pieces, with a quoted boundary and the model field', async () => {
      const head =
        '--speech boundary\r\nContent-Disposition: form-data; name="model"\r\n\r\nqwen3-asr\r\n' +
        '--speech boundary\r\nContent-Disposition: form-data; name="audio"; filename="note.txt"\r\n' +
        'Content-Type: text/plain\r\n\r\n';

      const reply = await rawPost('multipart/form-data; boundary="speech boundary"', [
        Buffer.from(head),
        Buffer.from('hello from '),
        Buffer.from('the raw socket\r\n--speech boundary--\r\n'),
      ]);

      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body)).toMatchObject({ text: 'hello from the raw socket' });
    });

    it('takes an upload of 5 MB, under the 6 MB limit', async () => {
      const reply = await upload(router.url, wavFile(160));

      expect(reply.status).toBe(200);
      expect(reply.body['duration_s']).toBe(160);
    });

    it.each([
      [
        'a JSON body',
        { headers: { 'content-type': 'application/json' }, body: '{"audio":"aGk="}' },
        /must be multipart\/form-data/,
      ],
      [
        'a multipart body without a boundary',
        { headers: { 'content-type': 'multipart/form-data' }, body: 'audio' },
        /Boundary not found/,
      ],
      [
        'a multipart body cut off before its end',
        {
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
          body: '--b\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\n\r\nRIFF',
        },
        /Unexpected end of multipart data/,
      ],
    ])('answers %s with 400', async (_case, init, message) => {
      const reply = await send(router.url, { method: 'POST', ...init });

      expect(reply.status).toBe(400);
      expect(reply.body['error']).toMatch(message);
    });

    it.each([
      ['no audio field', undefined, { model: 'qwen3-asr' }, /^no audio file/],
      ['an empty audio file', Buffer.alloc(0), {}, /^the audio file is empty$/],
    ])('answers an upload with %s with 400', async (_case, audio, fields, message) => {
      const reply = await upload(router.url, audio, fields);

      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: expect.stringMatching(message) });
    });

    it('answers 404 for a model no node has', async () => {
      const reply = await upload(router.url, wavFile(0.2), { model: 'whisper-large-v3' });

      expect(reply.status).toBe(404);
      expect(reply.body['error']).toMatch(/^model 'whisper-large-v3' not found on any node/);
    });

    it("answers 502 with the node's error when the job fails", async () => {
      agent?.transcription?.failNextJob('decoder crashed');

      const reply = await upload(router.url, wavFile(0.2));

      expect(reply.status).toBe(502);
      expect(reply.body).toEqual({ error: 'transcription failed on node studio: decoder crashed' });
    });

    it('answers 502 when the sidecar cannot be reached, and serves as soon as it is back though ejected (the only one)', async () => {
      await agent?.transcription?.faults.refuseConnections(true);
      const down = await upload(router.url, wavFile(0.2));
      await agent?.transcription?.faults.refuseConnections(false);
      // Ejected, but the only sidecar with the model: tried all the same (rank-nodes' panic), not turned away.
      const ejected = await upload(router.url, wavFile(0.2));
      const back = await upload(router.url, wavFile(0.2));

      expect(down.status).toBe(502);
      expect(down.body['error']).toMatch(
        /^speech-to-text failed: .*studio: refused the connection; node ejected for 1 s$/,
      );
      expect(ejected.status).toBe(200);
      expect(back.status).toBe(200);
    });
  });
});
