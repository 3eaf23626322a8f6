/**
 * The transport of a rerank attempt (ARCHITECTURE.md §8.3): `POST <text-embedding sidecar>/rerank` on the chosen
 * node, with the model under the name that node gives it (a fallback model may be the one tried).
 * Rerankers are only ever sidecar models, so an attempt anywhere else is a fleet fault, not the client's.
 */
import { UpstreamError } from '../../core/errors';
import { toSidecarRerankRequest } from '../../core/protocols/rerank/to-sidecar-rerank-request';
import type { RerankRequest } from '../../core/wire/rerank';
import type { NodeTransport } from '../../services/dispatch/transport';
import { openNodeStream } from '../../services/node-client/node-stream';

export function sendRerank(request: RerankRequest, documents: readonly string[]): NodeTransport {
  return async (attempt, signal, traceparent) => {
    const sidecar = attempt.node.sidecars.textEmbedding;
    if (attempt.placement.backend !== 'text-embedding' || sidecar === undefined) {
      throw new UpstreamError(`${attempt.node.id} has no text-embedding sidecar serving ${attempt.model}`);
    }
    const body = toSidecarRerankRequest(request, attempt.model, documents);
    return openNodeStream(sidecar.url, '/rerank', body, { signal, traceparent });
  };
}
