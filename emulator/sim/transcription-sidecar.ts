/**
 * The simulated speech-to-text sidecar of a node agent (ARCHITECTURE.md §8.3, `mlx-qwen3-asr serve`):
 * `POST /transcribe` with a multipart `audio` part → `{job_id}`; `GET /jobs/<id>` answers
 * `processing` for `jobMs`, then `completed` with `result {text, language, duration_s, chunks}` — or
 * `failed` with `error` when the `failNextJob` knob is set. Audio that is plain text "transcribes" to
 * itself, so tests can follow a phrase end to end.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendDetail, sendJson } from './http';
import { boundaryOf, parseMultipart } from './multipart';
import { type SimSidecar, startSidecarServer } from './sidecar';
import type { SimRequest } from './sim-server';

export interface TranscriptionModel {
  readonly name: string;
  readonly binary: string;
}

export interface TranscriptionSidecarOptions {
  readonly host?: string;
  /** 0 (default) = an ephemeral port. */
  readonly port?: number;
  readonly models?: readonly TranscriptionModel[];
  /** How long a job stays `processing`, ms (default 100). */
  readonly jobMs?: number;
}

export interface TranscriptionSidecar extends SimSidecar<TranscriptionModel> {
  /** The next job fails with `error` (default "simulated transcription failure"). */
  failNextJob(error?: string): void;
}

export const DEFAULT_TRANSCRIPTION_MODELS: readonly TranscriptionModel[] = [
  { name: 'qwen3-asr', binary: 'mlx-qwen3-asr' },
];

interface Job {
  readonly id: string;
  readonly readyAt: number;
  readonly result: Readonly<Record<string, unknown>>;
  readonly error: string | undefined;
}

const MAX_JOBS = 500;
/** 16 kHz, 16-bit mono: the byte rate assumed when the audio is not a WAV file. */
const DEFAULT_BYTE_RATE = 32_000;

/** Seconds of audio: from a WAV header when there is one, else from the byte count. */
export function audioSeconds(audio: Buffer): number {
  const wav =
    audio.length >= 44 && audio.toString('ascii', 0, 4) === 'RIFF' && audio.toString('ascii', 8, 12) === 'WAVE';
  const byteRate = wav ? audio.readUInt32LE(28) : DEFAULT_BYTE_RATE;
  const bytes = wav ? audio.length - 44 : audio.length;
  return Math.round((bytes / (byteRate > 0 ? byteRate : DEFAULT_BYTE_RATE)) * 100) / 100;
}

/** The transcript: printable text audio is its own transcript; anything else gets a stock sentence. */
export function transcriptOf(audio: Buffer, filename: string | undefined): string {
  const text = audio.toString('utf8');
  if (audio.length > 0 && audio.length <= 10_000 && /^[\p{L}\p{N}\p{P}\p{Zs}\n]+$/u.test(text)) return text.trim();
  return `This is a simulated transcript of ${filename ?? 'the audio'} (${audio.length} bytes).`;
}

function resultOf(audio: Buffer, filename: string | undefined): Record<string, unknown> {
  const text = transcriptOf(audio, filename);
  const duration = audioSeconds(audio);
  return {
    text,
    language: 'en',
    duration_s: duration,
    chunks: [{ text, start: 0, end: duration, chunk_index: 0, language: 'en' }],
  };
}

function jobStatus(job: Job, now: number): Record<string, unknown> {
  if (now < job.readyAt) return { job_id: job.id, status: 'processing' };
  if (job.error !== undefined) return { job_id: job.id, status: 'failed', error: job.error };
  return { job_id: job.id, status: 'completed', result: job.result };
}

export async function startTranscriptionSidecar(
  options: TranscriptionSidecarOptions = {},
): Promise<TranscriptionSidecar> {
  const jobMs = options.jobMs ?? 100;
  const jobs = new Map<string, Job>();
  let nextFailure: string | undefined;

  function transcribe(request: SimRequest, res: ServerResponse): void {
    const boundary = boundaryOf(request.headers['content-type']);
    const audio =
      boundary === undefined ? undefined : parseMultipart(request.body, boundary).find((p) => p.name === 'audio');
    if (audio === undefined) {
      sendDetail(res, 400, 'No audio file provided (multipart field "audio")');
      return;
    }
    const id = randomUUID();
    jobs.set(id, { id, readyAt: Date.now() + jobMs, result: resultOf(audio.data, audio.filename), error: nextFailure });
    nextFailure = undefined;
    if (jobs.size > MAX_JOBS) jobs.delete(jobs.keys().next().value ?? '');
    sendJson(res, 200, { job_id: id });
  }

  function poll(request: SimRequest, res: ServerResponse): void {
    const job = jobs.get(request.path.slice('/jobs/'.length));
    if (job === undefined) {
      sendDetail(res, 404, 'Job not found');
      return;
    }
    sendJson(res, 200, jobStatus(job, Date.now()));
  }

  const sidecar = await startSidecarServer({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    models: options.models ?? DEFAULT_TRANSCRIPTION_MODELS,
    routes: { 'POST /transcribe': transcribe, 'GET /jobs/*': poll },
    busy: () => [...jobs.values()].some((job) => Date.now() < job.readyAt),
  });
  return {
    ...sidecar,
    failNextJob: (error = 'simulated transcription failure') => {
      nextFailure = error;
    },
  };
}
