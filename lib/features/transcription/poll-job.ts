/**
 * Waits for a speech-to-text job on a node's sidecar (ARCHITECTURE.md §8.3): `GET /jobs/<id>` with a short
 * back-off (250 ms, doubling to 1 s) until the job is `completed` or `failed`, the time-out passes, or
 * the client goes away. A failed job and a time-out are 502s naming the node; a poll the node cannot
 * answer is retried twice before it is one too (a sidecar busy decoding may miss one poll), except a
 * 4xx — the node no longer knows the job — which fails at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamError } from '../../core/errors';
import { saidOfNode } from '../../core/fleet/node-failure';
import { RequestAbortedError } from '../../services/dispatch/request-aborted';
import { callNodeJson } from '../../services/node-client/node-client';
import { jobStateOf } from './sidecar-job';

export interface PollJobInput {
  /** The sidecar's base URL. */
  readonly baseUrl: string;
  readonly jobId: string;
  readonly nodeId: string;
  /** The client's signal: polling stops at once when it aborts. */
  readonly signal: AbortSignal;
  /** How long the job may take, from now, ms. */
  readonly timeoutMs: number;
  /** Waits between polls, ms: the first, then doubling up to the last (default 250 → 1000). */
  readonly pollDelaysMs?: { readonly first: number; readonly max: number };
}

/** Consecutive polls that may fail before the job is given up. */
const POLL_FAILURES_ALLOWED = 2;
/** The longest a single poll may take. */
const POLL_TIMEOUT_MS = 5000;

/** Waits `ms` or until the client goes away. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw new RequestAbortedError();
  }
}

async function pollOnce(input: PollJobInput, remainingMs: number): Promise<unknown> {
  const path = `/jobs/${encodeURIComponent(input.jobId)}`;
  return callNodeJson(input.baseUrl, path, {
    signal: input.signal,
    timeoutMs: Math.max(1, Math.min(POLL_TIMEOUT_MS, remainingMs)),
  });
}

/** Resolves with the job's transcript (`{text, ...}`); throws `UpstreamError` or `RequestAbortedError`. */
export async function pollTranscriptionJob(input: PollJobInput): Promise<Readonly<Record<string, unknown>>> {
  const deadline = Date.now() + input.timeoutMs;
  const first = input.pollDelaysMs?.first ?? 250;
  const max = input.pollDelaysMs?.max ?? 1000;
  let wait = first;
  let failures = 0;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    await pause(Math.min(wait, remaining), input.signal);
    wait = Math.min(wait * 2, max);
    let reply: unknown;
    try {
      reply = await pollOnce(input, deadline - Date.now());
    } catch (error) {
      if (input.signal.aborted) throw new RequestAbortedError();
      const status = error instanceof UpstreamError ? error.upstreamStatus : undefined;
      failures += 1;
      if ((status !== undefined && status < 500) || failures > POLL_FAILURES_ALLOWED) {
        throw new UpstreamError(
          `polling transcription job ${input.jobId} failed: ${saidOfNode(input.nodeId, error)}`,
          undefined,
          {
            cause: error,
            ...(error instanceof UpstreamError && error.detail !== undefined ? { detail: error.detail } : {}),
          },
        );
      }
      continue;
    }
    failures = 0;
    const job = jobStateOf(reply, input.nodeId);
    if (job.state === 'completed') return job.result;
    if (job.state === 'failed') {
      throw new UpstreamError(`transcription failed on node ${input.nodeId}: ${job.error}`, undefined, {
        code: 'transcription_failed',
        retryable: false,
      });
    }
  }
  throw new UpstreamError(
    `transcription on node ${input.nodeId} did not finish within ${input.timeoutMs / 1000} s`,
    undefined,
    { code: 'transcription_timeout', retryable: false },
  );
}
