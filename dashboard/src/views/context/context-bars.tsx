/**
 * Allocated against used context per model, as horizontal bars on one scale: the context its loaded copy
 * runs with, the p99 of the tokens its requests used (prompt + completion), and the context recommended.
 * Each bar carries its figure as text, so the colours are never the only key; the table beside it has
 * every figure.
 */
import type { ContextUsage } from '../../../../lib/core/analytics/context-usage';
import * as format from '../../format';
import { sized, UNSIZED_SHORT } from './sizing';

interface Bar {
  readonly kind: 'allocated' | 'used' | 'recommended';
  readonly label: string;
  readonly value: number | null;
  /** What to write where the value is not a number of tokens. */
  readonly missing: string;
}

function bars(model: ContextUsage): Bar[] {
  return [
    {
      kind: 'allocated',
      label: 'Allocated',
      value: model.allocated_ctx === 0 ? null : model.allocated_ctx,
      missing: model.allocated_ctx === 0 ? 'not loaded now' : 'not reported',
    },
    { kind: 'used', label: 'Used (p99)', value: model.total_tokens.p99, missing: 'not measured' },
    {
      kind: 'recommended',
      label: 'Recommended',
      value: sized(model) ? model.recommended_ctx : null,
      missing: UNSIZED_SHORT,
    },
  ];
}

export function ContextBars({ models }: { models: readonly ContextUsage[] }) {
  const scale = Math.max(1, ...models.flatMap((model) => bars(model).map((bar) => bar.value ?? 0)));
  return (
    <figure class="chart context-bars">
      <figcaption>Context per model: allocated, used (p99 of prompt + completion tokens) and recommended</figcaption>
      <ul class="context-bars-list">
        {models.map((model) => (
          <li key={model.model}>
            <h3 class="context-bars-model">{model.model}</h3>
            <dl>
              {bars(model).map((bar) => (
                <div class="context-bar-row" key={bar.kind}>
                  <dt>{bar.label}</dt>
                  <dd>
                    <span class="context-bar-track" aria-hidden="true">
                      <span
                        class={`context-bar context-bar-${bar.kind}`}
                        style={{ width: `${bar.value === null ? 0 : Math.max(0.5, (bar.value / scale) * 100)}%` }}
                      />
                    </span>
                    <span class="context-bar-value">
                      {bar.value === null ? bar.missing : `${format.count(bar.value)} tokens`}
                    </span>
                  </dd>
                </div>
              ))}
            </dl>
          </li>
        ))}
      </ul>
    </figure>
  );
}
