import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ImageSidecar,
  PNG_SIGNATURE,
  startImageSidecar,
  startTextEmbeddingSidecar,
  startTranscriptionSidecar,
  type TextEmbeddingSidecar,
  type TranscriptionSidecar,
} from '../../../../emulator/sim';
import { crc32 } from '../../../../emulator/sim/png';
import { fetchErrorCode, postJson, waitFor } from './helpers';

interface PngChunk {
  type: string;
  data: Buffer;
  crcOk: boolean;
}

function pngChunks(png: Buffer): PngChunk[] {
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    const crc = png.readUInt32BE(at + 8 + length);
    chunks.push({ type, data, crcOk: crc === crc32(png.subarray(at + 4, at + 8 + length)) });
    at += 12 + length;
  }
  return chunks;
}

describe('image sidecar', () => {
  let sidecar: ImageSidecar;

  beforeAll(async () => {
    sidecar = await startImageSidecar({ stepMs: 1 });
  });

  afterAll(async () => {
    await sidecar.close();
  });

  it('returns a valid PNG of the requested size', async () => {
    const res = await postJson(`${sidecar.url}/api/generate-image`, {
      model: 'z-image-turbo',
      prompt: 'a lighthouse at dusk',
      width: 96,
      height: 40,
      steps: 2,
      seed: 7,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-image-size')).toBe('96x40');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    const chunks = pngChunks(png);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    expect(chunks.every((c) => c.crcOk)).toBe(true);
    const ihdr = chunks[0]?.data ?? Buffer.alloc(13);
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([96, 40, 8, 2]);
    expect(inflateSync(chunks[1]?.data ?? Buffer.alloc(0)).length).toBe((1 + 3 * 96) * 40);
  });

  it('draws the same image for the same prompt and seed, another for another seed', async () => {
    const draw = async (seed: number) =>
      Buffer.from(
        await (
          await postJson(`${sidecar.url}/api/generate-image`, { prompt: 'p', width: 8, height: 8, seed })
        ).arrayBuffer(),
      );
    expect((await draw(1)).equals(await draw(1))).toBe(true);
    expect((await draw(1)).equals(await draw(2))).toBe(false);
  });

  it('rejects sizes above 2048, a missing prompt and unknown models', async () => {
    const big = await postJson(`${sidecar.url}/api/generate-image`, { prompt: 'x', width: 4096, height: 64 });
    expect(big.status).toBe(400);
    expect((await postJson(`${sidecar.url}/api/generate-image`, { width: 8 })).status).toBe(400);
    const unknown = await postJson(`${sidecar.url}/api/generate-image`, { model: 'flux-dev', prompt: 'x' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Unknown image model: flux-dev' });
  });

  it('has the fault knobs', async () => {
    sidecar.faults.failNext(1, 500);
    expect((await postJson(`${sidecar.url}/api/generate-image`, { prompt: 'x', width: 4, height: 4 })).status).toBe(
      500,
    );
    await sidecar.faults.refuseConnections(true);
    expect(await fetchErrorCode(`${sidecar.url}/api/generate-image`)).toBe('ECONNREFUSED');
    await sidecar.faults.reset();
    expect((await postJson(`${sidecar.url}/api/generate-image`, { prompt: 'x', width: 4, height: 4 })).status).toBe(
      200,
    );
  });
});

describe('speech-to-text sidecar', () => {
  let sidecar: TranscriptionSidecar;

  beforeAll(async () => {
    sidecar = await startTranscriptionSidecar({ jobMs: 150 });
  });

  afterAll(async () => {
    await sidecar.close();
  });

  const upload = (audio: Blob | undefined, field = 'audio') => {
    const form = new FormData();
    if (audio !== undefined) form.append(field, audio, 'speech.wav');
    form.append('language', 'en');
    return fetch(`${sidecar.url}/transcribe`, { method: 'POST', body: form });
  };

  const poll = async (id: string) =>
    (await (await fetch(`${sidecar.url}/jobs/${id}`)).json()) as Record<string, unknown>;

  it('answers a job id, processing for a while, then the completed result', async () => {
    const res = await upload(new Blob(['turn left at the old mill']));
    expect(res.status).toBe(200);
    const { job_id: id } = (await res.json()) as { job_id: string };
    expect(typeof id).toBe('string');
    expect(await poll(id)).toMatchObject({ status: 'processing' });
    expect(sidecar.busy()).toBe(true);
    await waitFor(() => !sidecar.busy());
    const done = await poll(id);
    expect(done).toMatchObject({
      status: 'completed',
      result: { text: 'turn left at the old mill', language: 'en', duration_s: expect.any(Number) },
    });
    expect(sidecar.busy()).toBe(false);
  });

  it('reads the duration of a WAV upload from its header', async () => {
    const wav = Buffer.alloc(44 + 64_000);
    wav.write('RIFF', 0, 'ascii');
    wav.write('WAVE', 8, 'ascii');
    wav.writeUInt32LE(32_000, 28);
    const { job_id: id } = (await (await upload(new Blob([wav]))).json()) as { job_id: string };
    await waitFor(() => !sidecar.busy());
    const done = await poll(id);
    expect(done['result']).toMatchObject({ duration_s: 2 });
  });

  it('fails the next job when asked', async () => {
    sidecar.failNextJob('decoder crashed');
    const { job_id: id } = (await (await upload(new Blob(['x']))).json()) as { job_id: string };
    await waitFor(() => !sidecar.busy());
    expect(await poll(id)).toEqual({ job_id: id, status: 'failed', error: 'decoder crashed' });
  });

  it('answers 400 without an audio part and 404 for an unknown job', async () => {
    expect((await upload(new Blob(['x']), 'file')).status).toBe(400);
    const json = await postJson(`${sidecar.url}/transcribe`, { audio: 'x' });
    expect(json.status).toBe(400);
    expect((await fetch(`${sidecar.url}/jobs/nope`)).status).toBe(404);
  });

  it('hangs when asked', async () => {
    sidecar.faults.hang(true);
    const outcome = await fetch(`${sidecar.url}/jobs/x`, { signal: AbortSignal.timeout(80) }).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    expect(outcome).toBe('TimeoutError');
    sidecar.faults.hang(false);
  });
});

describe('text-embedding sidecar', () => {
  let sidecar: TextEmbeddingSidecar;

  beforeAll(async () => {
    sidecar = await startTextEmbeddingSidecar();
  });

  afterAll(async () => {
    await sidecar.close();
  });

  it('embeds strings into normalised vectors of the model width', async () => {
    const res = await postJson(`${sidecar.url}/embed`, { model: 'bge-small-en-v1.5', input: ['one', 'two'] });
    const body = (await res.json()) as { embeddings: number[][] };
    expect(body.embeddings).toHaveLength(2);
    for (const vector of body.embeddings) {
      expect(vector).toHaveLength(384);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
    }
    const again = (await (
      await postJson(`${sidecar.url}/embed`, { model: 'bge-small-en-v1.5', input: 'one' })
    ).json()) as {
      embeddings: number[][];
    };
    expect(again.embeddings[0]).toEqual(body.embeddings[0]);
  });

  it('reranks as the real agent does: probabilities best first, cut to top_n, documents when asked', async () => {
    const documents = [
      'Bananas are yellow fruit.',
      'The capital of France is Paris.',
      'Paris is the capital city.',
      'Nothing relevant here at all.',
    ];
    const res = await postJson(`${sidecar.url}/rerank`, {
      model: 'ms-marco-minilm-l-6-v2',
      query: 'capital of France',
      documents: documents.map((text, index) => (index === 1 ? { text } : text)),
      top_n: 3,
      return_documents: true,
    });
    const body = (await res.json()) as {
      results: { index: number; relevance_score: number; document: { text: string } }[];
      usage: { total_tokens: number };
    };
    expect(body.results.map((r) => r.index)).toEqual([1, 2, 0]);
    expect(body.results.map((r) => r.document.text)).toEqual([documents[1], documents[2], documents[0]]);
    const scores = body.results.map((r) => r.relevance_score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(scores[0]).toBeGreaterThan(0.9);
    expect(scores[2]).toBeLessThan(0.1);
    expect(scores[2]).toBeGreaterThan(0);
    // Word counts: the 3-word query with each document (4 + 6 + 5 + 5 words).
    expect(body.usage).toEqual({ total_tokens: 4 * 3 + 4 + 6 + 5 + 5 });
  });

  it('returns every document when top_n is absent', async () => {
    const res = await postJson(`${sidecar.url}/rerank`, {
      model: 'bge-reranker-base',
      query: 'a',
      documents: ['a', 'b'],
    });
    expect(((await res.json()) as { results: unknown[] }).results).toHaveLength(2);
  });

  it('keeps rerankers and embedders apart and validates rerank input', async () => {
    expect((await postJson(`${sidecar.url}/embed`, { model: 'bge-reranker-base', input: 'x' })).status).toBe(400);
    expect(
      (await postJson(`${sidecar.url}/rerank`, { model: 'bge-small-en-v1.5', query: 'q', documents: ['d'] })).status,
    ).toBe(400);
    expect(
      (await postJson(`${sidecar.url}/rerank`, { model: 'bge-reranker-base', query: 'q', documents: [] })).status,
    ).toBe(400);
    expect(
      (await postJson(`${sidecar.url}/rerank`, { model: 'bge-reranker-base', query: 'q', documents: ['d'], top_n: 0 }))
        .status,
    ).toBe(400);
    expect((await postJson(`${sidecar.url}/embed`, { model: 'unknown', input: 'x' })).status).toBe(404);
  });

  it('fails the next request when asked', async () => {
    sidecar.faults.failNext(1, 503);
    expect((await postJson(`${sidecar.url}/embed`, { model: 'bge-small-en-v1.5', input: 'x' })).status).toBe(503);
    expect((await postJson(`${sidecar.url}/embed`, { model: 'bge-small-en-v1.5', input: 'x' })).status).toBe(200);
  });
});
