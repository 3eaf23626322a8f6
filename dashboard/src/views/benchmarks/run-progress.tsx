/**
 * The run going now: how far it is (elapsed of its duration), the figures its progress gives, and a
 * Cancel button when the page's key may change the fleet (`onCancelled` given). The view polls the
 * progress every second while this shows.
 */
import { useState } from 'preact/hooks';
import { apiPost } from '../../api';
import { ProgressBar } from '../../components/meter';
import { ErrorNotice } from '../../components/states';
import { Stat } from '../../components/view';
import { count, decimal } from '../../format';
import { type ActiveProgress, MODEL_TYPE_LABELS, startedAt } from './run-types';

export function RunProgress({ run, onCancelled }: { run: ActiveProgress; onCancelled: (() => void) | undefined }) {
  const [cancelling, setCancelling] = useState<string | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);

  const cancel = async () => {
    setError(undefined);
    setCancelling(run.run_id);
    try {
      await apiPost('api/benchmarks/cancel', {});
      onCancelled?.();
    } catch (failure) {
      setCancelling(undefined);
      setError(failure instanceof Error ? failure : new Error(String(failure)));
    }
  };

  const elapsed = Math.min(run.elapsed, run.duration);
  return (
    <div class="bench-progress">
      <p class="bench-run-line">
        Run <code>{run.run_id}</code> started {startedAt(run.started_at)} ·{' '}
        {run.model_types.map((type) => MODEL_TYPE_LABELS[type]).join(', ')} · phase: {run.phase}
      </p>
      <ProgressBar
        label="Benchmark progress"
        value={elapsed}
        max={run.duration}
        detail={`${decimal(elapsed)} s of ${count(run.duration)} s`}
      />
      <div class="stats">
        <Stat label="Requests done" value={count(run.requests_completed)} />
        <Stat label="Failures" value={count(run.requests_failed)} />
        <Stat label="Tokens per second" value={decimal(run.tok_per_sec)} />
        <Stat label="Models under load" value={count(run.models.length)} />
      </div>
      {error !== undefined && <ErrorNotice error={error} />}
      {onCancelled !== undefined && (
        <button type="button" class="danger" onClick={cancel} disabled={cancelling === run.run_id}>
          {cancelling === run.run_id ? 'Cancelling…' : 'Cancel run'}
        </button>
      )}
    </div>
  );
}
