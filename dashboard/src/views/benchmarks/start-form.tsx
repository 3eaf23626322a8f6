/**
 * The form that starts a benchmark run: mode, duration in seconds (within the API's bounds) and the model
 * types to load. A refusal because a run is already going (409) is handed up, naming that run.
 */
import { useState } from 'preact/hooks';
import { ApiError, apiPost } from '../../api';
import { ErrorNotice } from '../../components/states';
import {
  type BenchmarkMode,
  type BenchmarkModelType,
  DEFAULT_DURATION_S,
  MAX_DURATION_S,
  MIN_DURATION_S,
  MODE_LABELS,
  MODEL_TYPE_LABELS,
} from './run-types';

const RUN_ID = /bench-\d{13}-[0-9a-z]+/;

export interface StartFormProps {
  /** A run is going (here or elsewhere): the form waits for it. */
  readonly busy: boolean;
  readonly onStarted: (runId: string) => void;
  /** `start` answered 409: the run that holds the lock, when the answer named it. */
  readonly onConflict: (runId: string | undefined, message: string) => void;
}

export function StartForm({ busy, onStarted, onConflict }: StartFormProps) {
  const [mode, setMode] = useState<BenchmarkMode>('default');
  const [duration, setDuration] = useState(String(DEFAULT_DURATION_S));
  const [types, setTypes] = useState<readonly BenchmarkModelType[]>(['llm']);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<Error | undefined>(undefined);

  const toggle = (type: BenchmarkModelType, on: boolean) =>
    setTypes((chosen) =>
      on ? [...chosen.filter((entry) => entry !== type), type] : chosen.filter((entry) => entry !== type),
    );

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setSending(true);
    try {
      const started = await apiPost<{ run_id: string }>('api/benchmarks/start', {
        mode,
        duration: Number(duration),
        model_types: types,
      });
      onStarted(started.run_id);
    } catch (failure) {
      if (failure instanceof ApiError && failure.status === 409) {
        onConflict(RUN_ID.exec(failure.message)?.[0], failure.message);
      } else {
        setError(failure instanceof Error ? failure : new Error(String(failure)));
      }
    } finally {
      setSending(false);
    }
  };

  return (
    <form class="bench-form" onSubmit={submit} aria-describedby={busy ? 'bench-busy' : undefined}>
      {error !== undefined && <ErrorNotice error={error} />}
      <div class="bench-fields">
        <label>
          Mode
          <select value={mode} onChange={(event) => setMode(event.currentTarget.value as BenchmarkMode)}>
            {Object.entries(MODE_LABELS).map(([id, label]) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Duration (seconds)
          <input
            type="number"
            inputMode="numeric"
            required
            min={MIN_DURATION_S}
            max={MAX_DURATION_S}
            step={1}
            value={duration}
            onInput={(event) => setDuration(event.currentTarget.value)}
          />
        </label>
        <fieldset class="bench-types">
          <legend>Model types</legend>
          {Object.entries(MODEL_TYPE_LABELS).map(([id, label]) => (
            <label class="inline" key={id}>
              <input
                type="checkbox"
                name="model_types"
                value={id}
                checked={types.includes(id as BenchmarkModelType)}
                onChange={(event) => toggle(id as BenchmarkModelType, event.currentTarget.checked)}
              />
              {label}
            </label>
          ))}
        </fieldset>
      </div>
      {types.length === 0 && (
        <p class="bench-hint" role="status">
          Choose at least one model type.
        </p>
      )}
      <div class="bench-actions">
        <button type="submit" disabled={busy || sending || types.length === 0}>
          {sending ? 'Starting…' : 'Start benchmark'}
        </button>
        {busy && (
          <span id="bench-busy" class="bench-hint">
            A run is going: wait for it to end or cancel it.
          </span>
        )}
      </div>
    </form>
  );
}
