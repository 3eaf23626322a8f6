/** Rerank attempts on a node agent whose text-embedding sidecar has the rerankers, for the unit tests. */
import type { NodeView, SidecarModel } from '../../../../lib/core/fleet/node';
import type { NodeAttempt } from '../../../../lib/services/dispatch/transport';
import { makeNodeRecord } from '../../../helpers/factories';

const RERANKER: SidecarModel = { name: 'ms-marco-minilm-l-6-v2', kind: 'rerank', dimensions: 0 };

export function rankerNode(sidecar = true): NodeView {
  return {
    ...makeNodeRecord({
      id: 'ranker',
      source: 'agent',
      sidecars: sidecar
        ? { textEmbedding: { port: 11439, url: 'http://127.0.0.1:9', models: [RERANKER], busy: false } }
        : {},
    }),
    status: 'online',
  };
}

export function rerankAttempt(node = rankerNode()): NodeAttempt {
  return {
    node,
    placement: { node, kind: 'rerank', backend: 'text-embedding', sidecarModel: RERANKER },
    model: RERANKER.name,
  };
}
