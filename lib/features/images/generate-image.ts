/**
 * Generates one image on the fleet (spec §4.2, §4.5; anchor §4.3): a 404 naming the fleet's image
 * models when no node has the one asked for, then the routed call every kind of work shares — the
 * best-scored image-capable node (least busy: queue depth here, the sidecar's busy flag from its
 * heartbeat), queues, retries on 5xx and connection errors elsewhere, `fallback_models`, the trace with
 * style `image`. A node's refusal (4xx: a size or step count its model does not take, a prompt it will
 * not draw) is the client's error: its status and the node's own words, in the route's family shape —
 * the node, not the router, knows what its model accepts. Any other failure — 5xx or unreachable on
 * every node tried, a reply that is not a PNG — is 502 `image generation failed on <node>: <reason>`; a
 * fleet too busy to take the request stays 503.
 */

import { RouterError, toRouterError, UpstreamError } from '../../core/errors';
import { merged } from '../../core/merged';
import type { ImageJob } from '../../core/protocols/images/image-job';
import {
  describeNodeError,
  imageFromOllamaReply,
  imageFromSidecarReply,
} from '../../core/protocols/images/node-image-reply';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { createRequestTrace } from '../../services/dispatch/request-trace';
import {
  type ExchangeDeps,
  exchangeWhole,
  type NodeAnswer,
  nodeRefusal,
} from '../../services/dispatch/routed-exchange';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetConfig } from '../../services/platform/config';
import type { FleetRegistry } from '../../services/registry/registry';
import { addWaits, timedSnapshot } from '../../services/registry/timed-snapshot';
import type { RuntimeSettings } from '../../services/settings/runtime-settings';
import { requireImageModel } from './image-models';
import { createImageTransport, type NodeFailure } from './image-transport';

/** What the image routes use from the instance: the routed exchange's, the fleet, the runtime switch. */
export interface ImagesDeps extends ExchangeDeps {
  readonly config: Pick<FleetConfig, 'apiKeys' | 'sharing'>;
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'ready'>;
  readonly settings: Pick<RuntimeSettings, 'timed'>;
}

export interface GenerateImageInput {
  readonly request: HttpRequest;
  readonly response: ResponseSink;
  readonly job: ImageJob;
  readonly tags: readonly string[];
  /** The body's `metadata.priority`, unvalidated (lib/services/http/request-claim). */
  readonly metadataPriority?: unknown;
  /** What reading the runtime settings waited for the table, for the trace (./serve-images). */
  readonly settingsWaitMs?: number | undefined;
}

export interface GeneratedImage {
  readonly png: Buffer;
  /** `X-Fleet-*` and `X-Generation-Time` (ms from sending the job to the node to the whole image). */
  readonly headers: Readonly<Record<string, string>>;
}

function generationFailed(failure: NodeFailure, upstreamStatus?: number): UpstreamError {
  // The router already tried the other nodes: a client retry on top would only add load (anchor §9).
  return new UpstreamError(`image generation failed on ${failure.nodeId}: ${failure.reason}`, upstreamStatus, {
    code: 'image_generation_failed',
    retryable: false,
  });
}

/** The PNG in a served answer (2xx), the node's refusal (4xx), or the 502 saying why there is none. */
function imageOf(answer: NodeAnswer): Buffer {
  const nodeId = answer.attempt.node.id;
  if (answer.status >= 400 && answer.status < 500) throw nodeRefusal(answer);
  if (answer.status >= 300) {
    throw generationFailed({ nodeId, reason: describeNodeError(answer.status, answer.body) }, answer.status);
  }
  const image =
    answer.attempt.placement.backend === 'ollama'
      ? imageFromOllamaReply(answer.body)
      : imageFromSidecarReply(answer.body, answer.headers['content-type']);
  if (!image.ok) throw generationFailed({ nodeId, reason: image.reason });
  return image.png;
}

/**
 * The 404 before any dispatch, traced as the dispatcher's own failures are. Answers how long reading the
 * fleet waited for the table, for the trace.
 */
async function requireImageModelTraced(deps: ImagesDeps, input: GenerateImageInput): Promise<number | undefined> {
  const { job } = input;
  let tableWaitMs = input.settingsWaitMs;
  try {
    const fleet = await timedSnapshot(deps.registry);
    tableWaitMs = addWaits(tableWaitMs, fleet.tableWaitMs);
    requireImageModel(fleet.snapshot, [job.model, ...job.fallbackModels]);
  } catch (error) {
    const trace = createRequestTrace(deps.traces, { ...input, style: 'image', requestedModel: job.model, tableWaitMs });
    trace({ status: 'failed', error: toRouterError(error).message });
    throw error;
  }
  return tableWaitMs;
}

export async function generateImage(deps: ImagesDeps, input: GenerateImageInput): Promise<GeneratedImage> {
  const { job, response } = input;
  const claim = requestClaim(input.request, input, deps.config);
  const tableWaitMs = await requireImageModelTraced(deps, input);
  const routing: RoutingRequest = {
    model: job.model,
    fallbackModels: job.fallbackModels,
    kind: 'image',
    needsVision: false,
    claim,
  };
  const transport = createImageTransport(job);
  try {
    const result = await exchangeWhole(
      deps,
      {
        routing,
        send: transport.send,
        signal: response.clientGone,
        traced: { request: input.request, style: 'image', routing, tags: input.tags, tableWaitMs },
      },
      (answer) => ({ value: { png: imageOf(answer), generationMs: Date.now() - transport.sentAt() } }),
    );
    return {
      png: result.value.png,
      headers: merged<Record<string, string>>(result.headers, {
        'x-generation-time': String(result.value.generationMs),
      }),
    };
  } catch (error) {
    // Every node tried failed (the dispatcher's 503 after its retries): say which one last, and why.
    const last = transport.failures.at(-1);
    const dispatchGaveUp = error instanceof RouterError && error.status === 503;
    if (dispatchGaveUp && last !== undefined && !response.clientGone.aborted) throw generationFailed(last);
    throw error;
  }
}
