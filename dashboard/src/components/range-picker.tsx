/**
 * The time range of an analytics view: 24 h, 72 h, 7 d, 30 d or a custom start and end. Kept in the URL
 * (`?range=7d`, `?range=custom&from=…&to=…`), so a range survives a reload and can be shared.
 */
import type { Query } from '../api';
import { useQueryState } from '../hooks';

const PRESETS = [
  { id: '24h', label: '24 h', hours: 24 },
  { id: '72h', label: '72 h', hours: 72 },
  { id: '7d', label: '7 d', hours: 168 },
  { id: '30d', label: '30 d', hours: 720 },
] as const;

export interface TimeRange {
  readonly id: string;
  /** The window as the API takes it: `hours` or `days` back from now, or `start_ts`/`end_ts`. */
  query(unit: 'hours' | 'days'): Query;
  /** A phrase for headings: `the last 7 d`. */
  readonly phrase: string;
}

/** `datetime-local` text (local time) as epoch seconds, or undefined when empty or unreadable. */
function epochSeconds(local: string): number | undefined {
  if (local === '') return undefined;
  const ms = new Date(local).getTime();
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

export function useRange(fallback: string = '24h'): [TimeRange, (id: string) => void, RangeControls] {
  const [id, setId] = useQueryState('range', fallback);
  const [from, setFrom] = useQueryState('from', '');
  const [to, setTo] = useQueryState('to', '');
  const preset = PRESETS.find((entry) => entry.id === id);
  const range: TimeRange =
    preset !== undefined || id !== 'custom'
      ? {
          id: preset?.id ?? '24h',
          phrase: `the last ${preset?.label ?? '24 h'}`,
          query: (unit) => {
            const hours = preset?.hours ?? 24;
            return unit === 'hours' ? { hours } : { days: Math.max(1, Math.round(hours / 24)) };
          },
        }
      : {
          id: 'custom',
          phrase: 'the chosen range',
          query: () => ({ start_ts: epochSeconds(from), end_ts: epochSeconds(to) }),
        };
  return [range, setId, { from, to, setFrom, setTo }];
}

export interface RangeControls {
  readonly from: string;
  readonly to: string;
  setFrom(value: string): void;
  setTo(value: string): void;
}

export function RangePicker({
  range,
  onChange,
  controls,
}: {
  range: TimeRange;
  onChange: (id: string) => void;
  controls: RangeControls;
}) {
  return (
    <fieldset class="range-picker">
      <legend>Time range</legend>
      <div class="segmented">
        {[...PRESETS, { id: 'custom', label: 'Custom' }].map((preset) => (
          <label key={preset.id} class={range.id === preset.id ? 'selected' : ''}>
            <input
              type="radio"
              name="range"
              value={preset.id}
              checked={range.id === preset.id}
              onChange={() => onChange(preset.id)}
            />
            {preset.label}
          </label>
        ))}
      </div>
      {range.id === 'custom' && (
        <div class="range-custom">
          <label>
            From
            <input
              type="datetime-local"
              value={controls.from}
              onChange={(event) => controls.setFrom(event.currentTarget.value)}
            />
          </label>
          <label>
            To
            <input
              type="datetime-local"
              value={controls.to}
              onChange={(event) => controls.setTo(event.currentTarget.value)}
            />
          </label>
        </div>
      )}
    </fieldset>
  );
}
