/**
 * The routing bench's verdicts (issue 41 item 3), computed from the median rows, never asserted in a test:
 * - parity: the default's p95 TTFT within 5 % of the best strategy's;
 * - faster: the default's p95 TTFT at least 20 % lower than the best baseline's (least-busy, round-robin,
 *   random, reference), with fleet output tokens/s no lower than the best baseline's (1 % tolerance: in an
 *   open-loop replay every strategy serves the same tokens, and the figure moves only with the tail);
 * - fewer-cold-loads: at most half the cold loads of least-busy;
 * - cache-share: at least twice round robin's share of prompt tokens served from a node's cache.
 * A goal whose figures are missing (a strategy not run, node statistics unavailable) is neither passed nor
 * failed: it says what is missing.
 */
import { formatNumber } from '../stats';
import { DEFAULT_STRATEGY, type Strategy } from './router';
import type { Goal } from './scenario';
import type { SummaryRow } from './summary';

export interface VerdictLine {
  readonly goal: Goal;
  /** undefined: the figures to decide are missing. */
  readonly pass: boolean | undefined;
  readonly text: string;
}

export type Rows = ReadonlyMap<Strategy, SummaryRow>;

const BASELINES: readonly Strategy[] = ['least-busy', 'round-robin', 'random', 'reference'];
const THROUGHPUT_TOLERANCE = 0.01;

function ms(value: number): string {
  return `${formatNumber(value, 0)} ms`;
}

function best(rows: Rows, among: readonly Strategy[], pick: (row: SummaryRow) => number) {
  let found: { strategy: Strategy; value: number } | undefined;
  for (const strategy of among) {
    const row = rows.get(strategy);
    if (row === undefined) continue;
    const value = pick(row);
    if (found === undefined || value < found.value) found = { strategy, value };
  }
  return found;
}

function parity(rows: Rows, own: SummaryRow): VerdictLine {
  const top = best(rows, [...rows.keys()], (row) => row.ttftP95);
  if (top === undefined) return { goal: 'parity', pass: undefined, text: 'no strategy ran' };
  const pass = own.ttftP95 <= top.value * 1.05;
  return {
    goal: 'parity',
    pass,
    text: `p95 TTFT ${ms(own.ttftP95)} vs the best (${top.strategy}) ${ms(top.value)}: goal within 5 %`,
  };
}

function faster(rows: Rows, own: SummaryRow): VerdictLine {
  const top = best(rows, BASELINES, (row) => row.ttftP95);
  if (top === undefined) return { goal: 'faster', pass: undefined, text: 'no baseline ran' };
  const fastest = Math.max(
    ...BASELINES.flatMap((strategy) => {
      const row = rows.get(strategy);
      return row === undefined ? [] : [row.outputTokensPerSecond];
    }),
  );
  const lower = 1 - own.ttftP95 / top.value;
  const throughputOk = own.outputTokensPerSecond >= fastest * (1 - THROUGHPUT_TOLERANCE);
  return {
    goal: 'faster',
    pass: lower >= 0.2 && throughputOk,
    text:
      `p95 TTFT ${ms(own.ttftP95)} vs the best baseline (${top.strategy}) ${ms(top.value)}: ` +
      `${formatNumber(lower * 100, 0)} % lower (goal ≥ 20 %); output ${formatNumber(own.outputTokensPerSecond, 1)} ` +
      `tokens/s vs the baselines' best ${formatNumber(fastest, 1)} (goal: no lower, 1 % tolerance)`,
  };
}

function fewerColdLoads(rows: Rows, own: SummaryRow): VerdictLine {
  const other = rows.get('least-busy')?.coldLoads;
  if (own.coldLoads === undefined || other === undefined) {
    return {
      goal: 'fewer-cold-loads',
      pass: undefined,
      text: 'cold loads unknown (no node statistics or no least-busy run)',
    };
  }
  return {
    goal: 'fewer-cold-loads',
    pass: own.coldLoads <= other / 2,
    text: `cold loads ${formatNumber(own.coldLoads, 1)} vs least-busy's ${formatNumber(other, 1)} (goal ≤ half)`,
  };
}

function cacheShare(rows: Rows, own: SummaryRow): VerdictLine {
  const other = rows.get('round-robin')?.cacheShare;
  if (own.cacheShare === undefined || other === undefined) {
    return {
      goal: 'cache-share',
      pass: undefined,
      text: 'cache share unknown (no node statistics or no round-robin run)',
    };
  }
  return {
    goal: 'cache-share',
    pass: own.cacheShare >= other * 2,
    text: `cache share ${formatNumber(own.cacheShare * 100, 1)} % vs round robin's ${formatNumber(other * 100, 1)} % (goal ≥ twice)`,
  };
}

const CHECKS: Readonly<Record<Goal, (rows: Rows, own: SummaryRow) => VerdictLine>> = {
  parity,
  faster,
  'fewer-cold-loads': fewerColdLoads,
  'cache-share': cacheShare,
  // Judged apart, on the sharing scenario's variants (./sharing).
  sharing: () => ({ goal: 'sharing', pass: undefined, text: 'judged per variant (./sharing)' }),
};

/** The verdict on each of `goals` from the median rows of the strategies that ran. */
export function verdicts(goals: readonly Goal[], rows: Rows): VerdictLine[] {
  const own = rows.get(DEFAULT_STRATEGY);
  return goals.map((goal) =>
    own === undefined
      ? { goal, pass: undefined, text: `the default (${DEFAULT_STRATEGY}) did not run` }
      : CHECKS[goal](rows, own),
  );
}
