/**
 * The Context view (issue 23; spec §2 "Context usage record"): per model, the context its loaded copies
 * are allocated against what its requests used over a window of whole UTC days (`GET api/context-usage`),
 * the context recommended for it (lib/core/analytics/context-usage: 1.5 × the larger of the p99 total and
 * the last 24 hours' largest, rounded up to a power of two, at least 4,096) and the share that would save.
 * A model measured on fewer than `MIN_SIZING_REQUESTS` requests gets no advice (issue 44 item 1), as in
 * the health check: the view says how many it needs instead.
 */
import { type ContextUsage, MIN_SIZING_REQUESTS } from '../../../lib/core/analytics/context-usage';
import { RangePicker, useRange } from '../components/range-picker';
import { ScrollBox } from '../components/scroll-box';
import { Empty, WithData } from '../components/states';
import { Panel, Stat, View } from '../components/view';
import * as format from '../format';
import { useApi } from '../hooks';
import { ContextBars } from './context/context-bars';
import { sized, UNSIZED } from './context/sizing';
import './context.css';

const REFRESH_MS = 60_000;

interface ContextAnswer {
  readonly days: number;
  readonly percentile_error_pct: number;
  readonly models: readonly ContextUsage[];
}

/** The allocated context as text: 0 means no copy is loaded on a node that is up, null that none says. */
function allocated(model: ContextUsage): string {
  if (model.allocated_ctx === null) return 'not reported';
  if (model.allocated_ctx === 0) return 'not loaded';
  return format.count(model.allocated_ctx);
}

/** Tokens of context the recommendation frees, where a context is allocated and sized. */
function savedTokens(model: ContextUsage): number | null {
  if (!sized(model) || model.allocated_ctx === null || model.allocated_ctx === 0) return null;
  return Math.max(0, model.allocated_ctx - model.recommended_ctx);
}

function saving(model: ContextUsage): string {
  if (!sized(model)) return format.NONE;
  const tokens = savedTokens(model);
  if (tokens === null) return format.NONE;
  if (tokens === 0) return 'none';
  return `${format.count(tokens)} tokens (${format.percent(model.savings_pct)})`;
}

function ContextTable({ models }: { models: readonly ContextUsage[] }) {
  return (
    <ScrollBox label="Context usage table">
      <table class="context-table">
        <caption class="visually-hidden">Context usage per model, most requests first</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            <th scope="col" class="number">
              Requests (measured)
            </th>
            <th scope="col" class="number">
              Allocated context
            </th>
            <th scope="col" class="number">
              Used p99
            </th>
            <th scope="col" class="number">
              Used max
            </th>
            <th scope="col" class="number">
              Max last 24 h
            </th>
            <th scope="col" class="number">
              Prompt p50 / p95
            </th>
            <th scope="col" class="number">
              Utilisation
            </th>
            <th scope="col" class="number">
              Recommended
            </th>
            <th scope="col" class="number">
              Saving
            </th>
          </tr>
        </thead>
        <tbody>
          {models.map((model) => (
            <tr key={model.model}>
              <th scope="row">{model.model}</th>
              <td class="number">
                {format.count(model.request_count)} ({format.count(model.measured_requests)})
              </td>
              <td class="number">{allocated(model)}</td>
              <td class="number">{format.count(model.total_tokens.p99)}</td>
              <td class="number">{format.count(model.total_tokens.max)}</td>
              <td class="number">{format.count(model.total_tokens.max_24h)}</td>
              <td class="number">
                {format.count(model.prompt_tokens.p50)} / {format.count(model.prompt_tokens.p95)}
              </td>
              <td class="number">{format.percent(model.utilization_pct)}</td>
              <td class="number">{sized(model) ? format.count(model.recommended_ctx) : UNSIZED}</td>
              <td class="number">{saving(model)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

function ContextBody({ answer, phrase }: { answer: ContextAnswer; phrase: string }) {
  const { models } = answer;
  if (models.length === 0) {
    return (
      <Empty>
        No model had a completed request that reported its prompt tokens in {phrase}. Each model a chat or generate
        request runs on appears here, with the context its loaded copy was given (Ollama's <code>options.num_ctx</code>{' '}
        or the node's default) against the tokens its requests used.
      </Empty>
    );
  }
  const oversized = models.filter((model) => (savedTokens(model) ?? 0) > 0);
  const loaded = models.filter((model) => model.allocated_ctx !== null && model.allocated_ctx > 0);
  return (
    <>
      <div class="stats">
        <Stat label="Models measured" value={format.count(models.length)} hint={`in ${phrase}`} />
        <Stat label="Loaded with a known context" value={format.count(loaded.length)} />
        <Stat
          label="Could run with less context"
          value={format.count(oversized.length)}
          hint={
            oversized.length > 0
              ? oversized.map((m) => m.model).join(', ')
              : models.some(sized)
                ? 'every context fits its use'
                : `none has the ${format.count(MIN_SIZING_REQUESTS)} requests to size it from yet`
          }
        />
      </div>
      <Panel title="Per model">
        <ContextTable models={models} />
        <p class="state">
          Used is prompt + completion tokens per request, p99 over the window's completed requests that reported them
          (within ±{format.decimal(answer.percentile_error_pct)} %). Allocated is the largest context among the model's
          copies loaded now on nodes that are up. Utilisation is used p99 ÷ allocated; the saving is the context the
          recommendation frees. A context is recommended from {format.count(MIN_SIZING_REQUESTS)} measured requests on:
          fewer say little about the largest prompt to come.
        </p>
      </Panel>
      <Panel title="Allocated vs used">
        <ContextBars models={models} />
      </Panel>
    </>
  );
}

export function ContextView() {
  const [range, setRange, controls] = useRange('7d');
  const read = useApi<ContextAnswer>('api/context-usage', range.query('days'), REFRESH_MS);
  return (
    <View
      title="Context"
      summary={`How much of its context each model used over ${range.phrase}, and the context to run it with.`}
      controls={<RangePicker range={range} onChange={setRange} controls={controls} />}
    >
      <WithData read={read} what="the context usage">
        {(answer) => <ContextBody answer={answer} phrase={range.phrase} />}
      </WithData>
    </View>
  );
}
