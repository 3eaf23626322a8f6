/**
 * The Model management view (issue 23; anchor-ollama-herd §6.3): per node, from
 * `GET api/model-management`, its models on disk with their use over 7 and 30 days and all time, its
 * disk, a form to pull a model onto it (progress from the NDJSON lines, ./model-management/pull-form)
 * and Delete per model behind a confirmation (./model-management/delete-dialog). Both read the table
 * again when they are done. Both are offered only to a key that may change the fleet (issue 46).
 */
import { useState } from 'preact/hooks';
import type { ManagedNode } from '../../../lib/features/model-management/model-management-view';
import { ReadOnlyNote } from '../components/read-only-note';
import { Empty, WithData } from '../components/states';
import { Stat, View } from '../components/view';
import * as format from '../format';
import { useApi } from '../hooks';
import { useMayChange } from '../role';
import './model-management.css';
import { DeleteDialog, type DeleteTarget } from './model-management/delete-dialog';
import { ModelTable } from './model-management/model-table';
import { PullForm } from './model-management/pull-form';

interface ModelManagementAnswer {
  readonly nodes: readonly ManagedNode[];
  readonly generated_at: number;
}

const STATUS_LEVEL: Readonly<Record<string, 'ok' | 'warn' | 'bad'>> = { online: 'ok', degraded: 'warn' };

function NodeSection({
  node,
  onDelete,
  onChanged,
  mayChange,
}: {
  node: ManagedNode;
  onDelete: (target: DeleteTarget) => void;
  onChanged: () => void;
  mayChange: boolean;
}) {
  const heading = `mm-node-${node.node_id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  const diskUsed =
    node.disk_total_gb !== null && node.disk_available_gb !== null ? node.disk_total_gb - node.disk_available_gb : null;
  return (
    <section class="panel" aria-labelledby={heading}>
      <h2 id={heading}>
        {node.node_id} <span class={`badge badge-${STATUS_LEVEL[node.status] ?? 'bad'}`}>{node.status}</span>
      </h2>
      <div class="stats">
        <Stat
          label="Models"
          value={format.count(node.model_count)}
          hint={`${format.count(node.loaded_count)} loaded`}
        />
        <Stat label="Models' size" value={format.bytes(node.total_size_bytes)} />
        <Stat
          label="Disk free"
          value={format.gigabytes(node.disk_available_gb)}
          hint={node.disk_total_gb === null ? 'not reported' : `of ${format.gigabytes(node.disk_total_gb)}`}
        />
        <Stat label="Disk used" value={format.gigabytes(diskUsed)} />
      </div>
      {mayChange && <PullForm nodeId={node.node_id} onPulled={onChanged} />}
      <ModelTable node={node} onDelete={mayChange ? (model) => onDelete({ nodeId: node.node_id, model }) : undefined} />
    </section>
  );
}

export function ModelManagementView() {
  const read = useApi<ModelManagementAnswer>('api/model-management');
  const [target, setTarget] = useState<DeleteTarget | undefined>(undefined);
  const [deleted, setDeleted] = useState<DeleteTarget | undefined>(undefined);
  const mayChange = useMayChange();
  const controls = (
    <button type="button" class="secondary" onClick={read.reload} disabled={read.loading}>
      {read.loading ? 'Refreshing…' : 'Refresh'}
    </button>
  );
  return (
    <View
      title="Model management"
      summary="Each node's models on disk: pull new ones, delete unused ones."
      controls={controls}
    >
      {!mayChange && <ReadOnlyNote what="Pulls and deletes" />}
      {deleted !== undefined && (
        <p class="notice" role="status">
          Deleted {deleted.model} from {deleted.nodeId}.
        </p>
      )}
      <WithData read={read} what="the nodes' models">
        {(answer) =>
          answer.nodes.length === 0 ? (
            <Empty>No nodes yet: nodes appear here once an agent sends a heartbeat or FLEET_NODES lists them.</Empty>
          ) : (
            answer.nodes.map((node) => (
              <NodeSection
                key={node.node_id}
                node={node}
                onDelete={(next) => {
                  setDeleted(undefined);
                  setTarget(next);
                }}
                onChanged={read.reload}
                mayChange={mayChange}
              />
            ))
          )
        }
      </WithData>
      <DeleteDialog
        target={target}
        onClose={() => setTarget(undefined)}
        onDeleted={(done) => {
          setTarget(undefined);
          setDeleted(done);
          read.reload();
        }}
      />
    </View>
  );
}
