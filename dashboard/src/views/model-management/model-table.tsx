/**
 * One node's models on disk: size, parameters, quantisation, loaded (with its context), use, and Delete —
 * the last only when the page's key may change the fleet (`onDelete` given).
 */
import type { ManagedNode } from '../../../../lib/features/model-management/model-management-view';
import { Empty } from '../../components/states';
import * as format from '../../format';

export function ModelTable({ node, onDelete }: { node: ManagedNode; onDelete: ((model: string) => void) | undefined }) {
  if (node.models.length === 0) {
    return (
      <Empty>
        No models on {node.node_id}'s disk{onDelete === undefined ? '.' : ': pull one above.'}
      </Empty>
    );
  }
  return (
    <div class="table-scroll">
      <table class="models-table">
        <caption>Models on {node.node_id}</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" class="number">
              Size
            </th>
            <th scope="col">Parameters</th>
            <th scope="col">Quantisation</th>
            <th scope="col">Loaded</th>
            <th scope="col" class="number">
              Context
            </th>
            <th scope="col">Last used</th>
            <th scope="col" class="number">
              Requests 7 d
            </th>
            <th scope="col" class="number">
              30 d
            </th>
            <th scope="col" class="number">
              All time
            </th>
            <th scope="col">Use</th>
            {onDelete !== undefined && (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {node.models.map((model) => (
            <tr key={model.name}>
              <th scope="row">
                {model.name}
                {model.display_name !== null && <div class="mm-sub">{model.display_name}</div>}
              </th>
              <td class="number">{format.bytes(model.size_bytes)}</td>
              <td>{model.parameter_size ?? format.NONE}</td>
              <td>{model.quantization ?? format.NONE}</td>
              <td>{model.loaded ? <span class="badge badge-ok">loaded</span> : 'no'}</td>
              <td class="number">{format.count(model.context_length)}</td>
              <td>
                {model.last_used === null ? (
                  format.NONE
                ) : (
                  <time
                    dateTime={new Date(model.last_used * 1000).toISOString()}
                    title={format.dateTime(model.last_used)}
                  >
                    {format.ago(model.last_used)}
                  </time>
                )}
              </td>
              <td class="number">{format.count(model.requests_7d)}</td>
              <td class="number">{format.count(model.requests_30d)}</td>
              <td class="number">{format.count(model.total_requests)}</td>
              <td>{model.unused ? <span class="badge badge-warn">unused 7 d</span> : 'in use'}</td>
              {onDelete !== undefined && (
                <td>
                  <button
                    type="button"
                    class="danger small"
                    aria-label={`Delete ${model.name} from ${node.node_id}`}
                    onClick={() => onDelete(model.name)}
                  >
                    Delete
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
