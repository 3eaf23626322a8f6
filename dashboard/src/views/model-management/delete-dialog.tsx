/**
 * Asks before a model is deleted from a node: a modal dialog (focus kept inside, Escape cancels) naming
 * the model and the node, Cancel focused first; Delete posts `api/delete` `{node_id, model}` and closes
 * once the node has deleted it. A refusal stays in the dialog.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiPost } from '../../api';

export interface DeleteTarget {
  readonly nodeId: string;
  readonly model: string;
}

export function DeleteDialog({
  target,
  onClose,
  onDeleted,
}: {
  target: DeleteTarget | undefined;
  onClose: () => void;
  onDeleted: (target: DeleteTarget) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    setError(undefined);
    if (target !== undefined && !element.open) element.showModal();
    if (target === undefined && element.open) element.close();
  }, [target]);

  const confirm = async () => {
    if (target === undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      await apiPost('api/delete', { node_id: target.nodeId, model: target.model });
      onDeleted(target);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      class="confirm-dialog"
      aria-labelledby="delete-title"
      aria-describedby="delete-text"
      onClose={() => {
        if (target !== undefined) onClose();
      }}
    >
      <h2 id="delete-title">Delete model</h2>
      <p id="delete-text">
        Delete <strong>{target?.model}</strong> from <strong>{target?.nodeId}</strong>? Its files are removed from the
        node's disk; pulling it again downloads it again.
      </p>
      {error !== undefined && (
        <div class="notice notice-error" role="alert">
          <p>{error}</p>
        </div>
      )}
      <div class="confirm-actions">
        <button type="button" class="secondary" autofocus onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => void confirm()} disabled={busy}>
          {busy ? 'Deleting…' : 'Confirm delete'}
        </button>
      </div>
    </dialog>
  );
}
