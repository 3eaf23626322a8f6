/**
 * `POST /api/transcribe` (spec §4.5, §7; ARCHITECTURE.md §8.3 speech-to-text sidecar; anchor §4.4): a
 * `multipart/form-data` upload with the file field `audio` (and optionally `model`) → the node's
 * transcript `{text, ...}` with `X-Fleet-Node`, `X-Fleet-Model`, `X-Transcription-Time` (ms) and the
 * other `X-Fleet-*` headers. In order: 503 while transcription is off (`FLEET_TRANSCRIPTION` or the
 * runtime setting), 400 for a bad upload, 404 when no node has an ASR model, then the dispatcher as for
 * chat — the upload is the attempt (a connection error or a 5xx moves on to another node or ASR model)
 * and the job is polled with the queue slot held — and 502 when the node fails: every node tried failed,
 * the job failed, or it did not finish in time. Traced like chat, style `transcription`. The sidecar
 * gets the audio (file name and type kept) and the client's other text fields; not the model name,
 * which the sidecar protocol (ARCHITECTURE.md §8.3) does not have (a sidecar serves the model it reports).
 */

import { randomUUID } from 'node:crypto';
import { type RouterError, ServiceUnavailableError, UpstreamError } from '../../core/errors';
import { merged } from '../../core/merged';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { mergeTags } from '../../core/scoring/tags';
import { parseJson } from '../../core/wire/json';
import { NodesFailedError } from '../../services/dispatch/dispatch-failures';
import {
  type ExchangeDeps,
  exchangeWhole,
  type NodeAnswer,
  nodeRefusal,
  type RoutedValue,
} from '../../services/dispatch/routed-exchange';
import type { NodeAttempt, NodeTransport } from '../../services/dispatch/transport';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import { openNodeRequest } from '../../services/node-client/node-stream';
import type { FleetConfig } from '../../services/platform/config';
import type { FleetRegistry } from '../../services/registry/registry';
import { addWaits, timedSnapshot } from '../../services/registry/timed-snapshot';
import type { RuntimeSettings } from '../../services/settings/runtime-settings';
import { encodeAudioForm } from './audio-form';
import { readAudioUpload } from './audio-upload';
import { pollTranscriptionJob } from './poll-job';
import { jobIdOf } from './sidecar-job';
import { transcriptionRouting } from './transcription-routing';

/** What the speech-to-text route uses from the instance: the routed exchange's, the fleet, the runtime switch. */
export interface TranscriptionDeps extends ExchangeDeps {
  readonly config: Pick<FleetConfig, 'apiKeys' | 'sharing'>;
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'ready'>;
  readonly settings: Pick<RuntimeSettings, 'timed'>;
}

export type TranscriptionRoute = (
  deps: TranscriptionDeps,
  request: HttpRequest,
  response: ResponseSink,
) => Promise<void>;

export interface TranscriptionOptions {
  /** How long a job may take on the node, ms (default 300 s, as the reference's TRANSCRIPTION_TIMEOUT). */
  readonly jobTimeoutMs?: number;
  /** Waits between job polls, ms (default 250 doubling to 1000). */
  readonly pollDelaysMs?: { readonly first: number; readonly max: number };
}

export const TRANSCRIPTION_DISABLED_MESSAGE =
  'speech-to-text is disabled: enable it with FLEET_TRANSCRIPTION=true, or at run time with ' +
  'POST /dashboard/api/settings {"transcription": true}';

const DEFAULT_JOB_TIMEOUT_MS = 300_000;

interface Transcript {
  readonly result: Readonly<Record<string, unknown>>;
  /** From sending the audio to the finished job, ms. */
  readonly elapsedMs: number;
}

/** Refuses when speech-to-text is off; answers how long reading the settings waited for the table. */
async function requireEnabled(runtime: Pick<RuntimeSettings, 'timed'>): Promise<number | undefined> {
  const { settings, tableWaitMs } = await runtime.timed();
  if (!settings.transcription) {
    throw new ServiceUnavailableError(TRANSCRIPTION_DISABLED_MESSAGE, {
      code: 'transcription_disabled',
      retryable: false,
    });
  }
  return tableWaitMs;
}

/** The sidecar that serves the attempt; a node without one fails the attempt and the next is tried. */
function sidecarUrl(attempt: NodeAttempt): string {
  const sidecar = attempt.placement.backend === 'transcription' ? attempt.node.sidecars.transcription : undefined;
  if (sidecar === undefined) throw new UpstreamError(`node ${attempt.node.id} has no speech-to-text sidecar`);
  return sidecar.url;
}

/**
 * A sidecar's 4xx to the upload: its own words with its status (`nodeRefusal`) — except 404, which on
 * this route means "no ASR model" and here would only mean the node has no `/transcribe`, a node failure.
 */
function sidecarRefusal(answer: NodeAnswer): RouterError {
  const nodeId = answer.attempt.node.id;
  if (answer.status === 404) return new UpstreamError(`node ${nodeId}'s speech-to-text sidecar answered 404`, 404);
  return nodeRefusal(answer);
}

/**
 * When every node tried failed (connection errors, 5xx), the dispatcher's answer is a 503
 * (`NodesFailedError`); for speech-to-text that is the node failure the issue answers 502.
 */
function asNodeFailure(error: unknown): unknown {
  if (error instanceof NodesFailedError) {
    return new UpstreamError(`speech-to-text failed: ${error.message}`, undefined, {
      code: 'transcription_failed',
      retryable: false,
      cause: error,
      ...(error.detail !== undefined ? { detail: error.detail } : {}),
    });
  }
  return error;
}

export function createTranscriptionRoute(options: TranscriptionOptions = {}): TranscriptionRoute {
  const jobTimeoutMs = options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
  return async (deps, request, response) => {
    const settingsWaitMs = await requireEnabled(deps.settings);
    const upload = await readAudioUpload(request);
    const fleet = await timedSnapshot(deps.registry);
    const { snapshot } = fleet;
    const tableWaitMs = addWaits(settingsWaitMs, fleet.tableWaitMs);
    const routing = transcriptionRouting(snapshot, upload.model);
    const form = encodeAudioForm(upload.audio, upload.fields, `fleet-router-${randomUUID()}`);
    let sentAt = Date.now();
    const send: NodeTransport = (attempt, signal, traceparent) => {
      sentAt = Date.now();
      return openNodeRequest(sidecarUrl(attempt), '/transcribe', form, {
        signal,
        firstByteTimeoutMs: jobTimeoutMs,
        traceparent,
      });
    };
    const interpret = async (answer: NodeAnswer): Promise<RoutedValue<Transcript>> => {
      if (answer.status >= 400) throw sidecarRefusal(answer);
      const nodeId = answer.attempt.node.id;
      const submitted = parseJson(answer.body.toString('utf8'));
      const jobId = jobIdOf(submitted.ok ? submitted.value : undefined, nodeId);
      const result = await pollTranscriptionJob({
        baseUrl: sidecarUrl(answer.attempt),
        jobId,
        nodeId,
        signal: response.signal,
        timeoutMs: jobTimeoutMs,
        ...(options.pollDelaysMs !== undefined ? { pollDelaysMs: options.pollDelaysMs } : {}),
      });
      return { value: { result, elapsedMs: Date.now() - sentAt } };
    };
    const tags = mergeTags({ headerValue: request.header('x-service-tags'), user: upload.user });
    const claimed = merged<RoutingRequest>(routing, { claim: requestClaim(request, { tags }, deps.config) });
    const routed = await exchangeWhole(
      deps,
      {
        routing: claimed,
        send,
        signal: response.signal,
        traced: { request, style: 'transcription', routing: claimed, tags, tableWaitMs },
      },
      interpret,
    ).catch((error: unknown) => {
      throw asNodeFailure(error);
    });
    await sendJson(response, routed.value.result, 200, {
      ...routed.headers,
      'x-transcription-time': String(routed.value.elapsedMs),
    });
  };
}

export const serveTranscription: TranscriptionRoute = createTranscriptionRoute();
