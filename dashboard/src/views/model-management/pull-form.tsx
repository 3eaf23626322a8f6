/**
 * Pulling a model onto one node: a labelled name and a button; `POST api/pull` `{node_id, model}` whose
 * NDJSON lines (Ollama's: status, digest, total, completed) feed a progress bar — the bytes of every
 * layer seen so far — until `success`. An `error` line or a refusal (409: that model is being pulled
 * already) is shown as an error. `onPulled` runs after success, so the node's table can be read again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiPostLines } from '../../api';
import { ProgressBar } from '../../components/meter';
import * as format from '../../format';

interface Pull {
  readonly model: string;
  readonly status: string;
  readonly completed: number;
  readonly total: number;
  readonly state: 'running' | 'done' | 'failed';
  readonly error?: string;
}

/** Sums the layers' bytes: each digest's latest `completed` and `total`. */
function layerSums(layers: ReadonlyMap<string, { completed: number; total: number }>) {
  let completed = 0;
  let total = 0;
  for (const layer of layers.values()) {
    completed += layer.completed;
    total += layer.total;
  }
  return { completed, total };
}

export function PullForm({ nodeId, onPulled }: { nodeId: string; onPulled: () => void }) {
  const [name, setName] = useState('');
  const [pull, setPull] = useState<Pull | undefined>(undefined);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = async (model: string) => {
    const abort = new AbortController();
    controller.current = abort;
    const layers = new Map<string, { completed: number; total: number }>();
    let succeeded = false;
    setPull({ model, status: 'starting', completed: 0, total: 0, state: 'running' });
    try {
      await apiPostLines(
        'api/pull',
        { node_id: nodeId, model },
        (line) => {
          const status = typeof line['status'] === 'string' ? line['status'] : '';
          const digest = line['digest'];
          const total = line['total'];
          if (typeof digest === 'string' && typeof total === 'number') {
            const completed = typeof line['completed'] === 'number' ? line['completed'] : 0;
            layers.set(digest, { completed, total });
          }
          const sums = layerSums(layers);
          const done = status === 'success';
          if (done) succeeded = true;
          setPull({
            model,
            status,
            completed: done ? Math.max(sums.total, 1) : sums.completed,
            total: done ? Math.max(sums.total, 1) : sums.total,
            state: done ? 'done' : 'running',
          });
        },
        abort.signal,
      );
      if (succeeded) onPulled();
      else
        setPull({
          model,
          status: '',
          completed: 0,
          total: 0,
          state: 'failed',
          error: 'the node ended it before success',
        });
    } catch (error) {
      if (abort.signal.aborted) return;
      const message = error instanceof Error ? error.message : String(error);
      setPull((last) => ({
        model,
        status: last?.status ?? '',
        completed: last?.completed ?? 0,
        total: last?.total ?? 0,
        state: 'failed',
        error: message,
      }));
    }
  };

  const running = pull?.state === 'running';
  const inputId = `pull-${nodeId.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  return (
    <div class="pull">
      <form
        class="pull-form"
        onSubmit={(event) => {
          event.preventDefault();
          const model = name.trim();
          if (model === '' || running) return;
          void start(model);
        }}
      >
        <label for={inputId}>Model to pull onto {nodeId}</label>
        <div class="pull-row">
          <input
            id={inputId}
            type="text"
            required
            placeholder="llama3.2:3b"
            autocomplete="off"
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
          <button type="submit" disabled={running}>
            {running ? 'Pulling…' : 'Pull'}
          </button>
        </div>
      </form>
      {pull !== undefined && (
        <div class="pull-progress">
          <ProgressBar
            label={`Pull of ${pull.model} onto ${nodeId}`}
            value={pull.completed}
            max={Math.max(pull.total, 1)}
            {...(pull.total > 0 ? { detail: `${format.bytes(pull.completed)} of ${format.bytes(pull.total)}` } : {})}
          />
          <p class={`pull-status pull-${pull.state}`} role="status">
            {pull.state === 'done'
              ? `Done: ${pull.model} is on ${nodeId}.`
              : pull.state === 'failed'
                ? ''
                : pull.status === ''
                  ? 'Starting…'
                  : pull.status}
          </p>
          {pull.state === 'failed' && (
            <div class="notice notice-error" role="alert">
              <p>
                Pulling {pull.model} failed: {pull.error}
              </p>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
