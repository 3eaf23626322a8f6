/**
 * The speech-to-text sidecar's job protocol, as the router reads it (ARCHITECTURE.md §8.3, anchor §4.4):
 * `POST /transcribe` answers `{job_id}`; `GET /jobs/<job_id>` answers a `status` that is `completed`
 * (`result` holds `{text, ...}`), `failed` (`error`) or anything else while the job runs (`queued`,
 * `processing`, …). Node replies are read leniently — only the fields used are checked — and a reply
 * the router cannot use is an `UpstreamError` (502). Pure.
 */
import { UpstreamError } from '../../core/errors';
import { lazySchema } from '../../core/wire/lazy-schema';
import * as z from '../../core/wire/zod';

/** What a poll says about the job. */
export type JobState =
  | { readonly state: 'running'; readonly status: string }
  | { readonly state: 'completed'; readonly result: Readonly<Record<string, unknown>> }
  | { readonly state: 'failed'; readonly error: string };

// Built on first use, as every wire schema is (lib/core/wire/lazy-schema.ts): only speech-to-text reads them.
const submitted = lazySchema(() => z.looseObject({ job_id: z.union([z.string().check(z.minLength(1)), z.number()]) }));

const polled = lazySchema(() =>
  z.looseObject({
    status: z.string(),
    result: z.nullish(z.looseObject({})),
    error: z.optional(z.unknown()),
  }),
);

const transcript = lazySchema(() => z.looseObject({ text: z.string() }));

/** The job id from `POST /transcribe`'s reply. */
export function jobIdOf(reply: unknown, nodeId: string): string {
  const parsed = submitted().safeParse(reply);
  if (!parsed.success) throw new UpstreamError(`node ${nodeId} accepted the audio but answered without a job_id`);
  return String(parsed.data.job_id);
}

function errorText(error: unknown): string {
  if (typeof error === 'string' && error !== '') return error;
  if (typeof error === 'object' && error !== null) return JSON.stringify(error);
  return 'no reason given';
}

/**
 * The job's state from a `GET /jobs/<id>` reply. A completed job's transcript is its `result` (or, from
 * a sidecar that puts the fields at the top level, the reply itself) and must have a `text` string;
 * every other field (`language`, `chunks`, `duration_s`, …) is kept for the client.
 */
export function jobStateOf(reply: unknown, nodeId: string): JobState {
  const parsed = polled().safeParse(reply);
  if (!parsed.success) throw new UpstreamError(`node ${nodeId} answered a job poll without a status`);
  const { status, result, error } = parsed.data;
  if (status === 'failed') return { state: 'failed', error: errorText(error) };
  if (status !== 'completed') return { state: 'running', status };
  const body = transcript().safeParse(result ?? reply);
  if (!body.success) throw new UpstreamError(`node ${nodeId} completed the transcription without a text`);
  return { state: 'completed', result: body.data };
}
