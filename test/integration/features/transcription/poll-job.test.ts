/** The job poll against the simulated speech-to-text sidecar on 127.0.0.1 (its own HTTP server). */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startTranscriptionSidecar, type TranscriptionSidecar } from '../../../../emulator/sim/transcription-sidecar';
import { UpstreamError } from '../../../../lib/core/errors';
import { type PollJobInput, pollTranscriptionJob } from '../../../../lib/features/transcription/poll-job';
import { RequestAbortedError } from '../../../../lib/services/dispatch/request-aborted';
import { encodeUpload } from '../../../helpers/upload-form';

let fast: TranscriptionSidecar;
let slow: TranscriptionSidecar;

beforeAll(async () => {
  fast = await startTranscriptionSidecar({ jobMs: 40 });
  slow = await startTranscriptionSidecar({ jobMs: 60_000 });
});

afterEach(async () => {
  await fast.faults.reset();
});

afterAll(async () => {
  await Promise.all([fast.close(), slow.close()]);
});

/** Submits `text` as the audio (the sim transcribes printable text to itself) and returns the job id. */
async function submit(sidecar: TranscriptionSidecar, text: string): Promise<string> {
  const upload = await encodeUpload([['audio', Buffer.from(text), 'note.txt']], 'text/plain');
  const response = await fetch(`${sidecar.url}/transcribe`, {
    method: 'POST',
    headers: { 'content-type': upload.contentType },
    body: upload.body,
  });
  const { job_id } = (await response.json()) as { job_id: string };
  return job_id;
}

function input(sidecar: TranscriptionSidecar, jobId: string, overrides: Partial<PollJobInput> = {}): PollJobInput {
  return {
    baseUrl: sidecar.url,
    jobId,
    nodeId: 'asr-1',
    signal: new AbortController().signal,
    timeoutMs: 5000,
    pollDelaysMs: { first: 10, max: 40 },
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('pollTranscriptionJob', () => {
  it("polls until the job completes and returns the node's whole result", async () => {
    const jobId = await submit(fast, 'the quick brown fox');

    const result = await pollTranscriptionJob(input(fast, jobId));

    expect(result).toEqual({
      text: 'the quick brown fox',
      language: 'en',
      duration_s: expect.any(Number),
      chunks: [expect.objectContaining({ text: 'the quick brown fox', chunk_index: 0 })],
    });
  });

  it("answers 502 with the node's error when the job fails", async () => {
    fast.failNextJob('could not decode the audio');
    const jobId = await submit(fast, 'anything');

    const error = await failure(pollTranscriptionJob(input(fast, jobId)));

    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toBe('transcription failed on node asr-1: could not decode the audio');
    expect((error as UpstreamError).retryable).toBe(false);
  });

  it('gives up with 502 when the job does not finish in time', async () => {
    const jobId = await submit(slow, 'long meeting');
    const started = Date.now();

    const error = await failure(pollTranscriptionJob(input(slow, jobId, { timeoutMs: 150 })));

    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toBe('transcription on node asr-1 did not finish within 0.15 s');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('stops at once when the client goes away', async () => {
    const jobId = await submit(slow, 'long meeting');
    const client = new AbortController();
    setTimeout(() => client.abort(), 60);
    const started = Date.now();

    const error = await failure(
      pollTranscriptionJob(input(slow, jobId, { signal: client.signal, pollDelaysMs: { first: 1000, max: 1000 } })),
    );

    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('rides out two failed polls in a row', async () => {
    const jobId = await submit(fast, 'still here');
    fast.faults.failNext(2, 500);

    const result = await pollTranscriptionJob(input(fast, jobId));

    expect(result['text']).toBe('still here');
  });

  it('answers 502 after a third failed poll in a row', async () => {
    const jobId = await submit(fast, 'gone');
    fast.faults.failNext(3, 503);

    const error = await failure(pollTranscriptionJob(input(fast, jobId)));

    expect((error as UpstreamError).message).toMatch(
      /^polling transcription job .+ failed: node asr-1 failed \(HTTP 503\)$/,
    );
  });

  it('answers 502 at once when the node no longer knows the job', async () => {
    const started = Date.now();

    const error = await failure(
      pollTranscriptionJob(input(fast, 'no-such-job', { pollDelaysMs: { first: 200, max: 200 } })),
    );

    expect((error as UpstreamError).message).toMatch(
      /^polling transcription job no-such-job failed: node asr-1 refused the call \(HTTP 404: .+\)$/,
    );
    expect(Date.now() - started).toBeLessThan(450);
  });
});
