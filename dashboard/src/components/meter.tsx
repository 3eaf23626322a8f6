/** A labelled bar for a share of something (memory, CPU, a queue's slots), readable by a screen reader. */

export interface MeterProps {
  readonly label: string;
  /** 0–100; null when not reported (the bar is empty and says so). */
  readonly percent: number | null;
  /** The figures beside the bar, e.g. `12.1 / 64 GB`. */
  readonly detail?: string;
  /** `warn` and `bad` colour the bar (memory pressure, a hot node). */
  readonly level?: 'ok' | 'warn' | 'bad';
}

export function Meter({ label, percent, detail, level = 'ok' }: MeterProps) {
  const shown = percent === null ? 0 : Math.max(0, Math.min(100, percent));
  const text = percent === null ? 'not reported' : `${Math.round(shown)} %${detail === undefined ? '' : `, ${detail}`}`;
  return (
    <div class="meter">
      <div class="meter-label">
        <span>{label}</span>
        <span class="meter-detail">{percent === null ? 'not reported' : (detail ?? `${Math.round(shown)} %`)}</span>
      </div>
      <meter
        class={`meter-bar meter-${level}`}
        aria-label={label}
        aria-valuetext={text}
        min={0}
        max={100}
        value={shown}
      />
    </div>
  );
}

/** A task's progress (a pull, a benchmark): a native progress element with its label and figures. */
export function ProgressBar({
  label,
  value,
  max,
  detail,
}: {
  label: string;
  value: number;
  max: number;
  detail?: string;
}) {
  return (
    <div class="progress">
      <div class="meter-label">
        <span>{label}</span>
        {detail !== undefined && <span class="meter-detail">{detail}</span>}
      </div>
      <progress aria-label={label} value={Math.min(value, max)} max={max} />
    </div>
  );
}
