/**
 * The Prometheus text exposition format, version 0.0.4 (issue 22 item 9): metric families with their
 * `# HELP` and `# TYPE` lines and one line per sample, label values and help text escaped as the format
 * says (backslash, double quote and line feed in a label value; backslash and line feed in help text).
 * Only this file writes the format. Pure.
 */

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Sample {
  /** Appended to the family's name: `_bucket`, `_sum`, `_count` for a histogram; empty otherwise. */
  readonly suffix?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value as the format writes it: `+Inf`, `-Inf`, `NaN`, else the shortest exact decimal. */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

function labelText(labels: Readonly<Record<string, string>>): string {
  const names = Object.keys(labels);
  if (names.length === 0) return '';
  const pairs = names.map((name) => {
    if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new TypeError(`invalid label name ${name}`);
    return `${name}="${escapeLabelValue(labels[name] as string)}"`;
  });
  return `{${pairs.join(',')}}`;
}

/** The families as one exposition, each family's lines together, ending with a line feed. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new TypeError(`invalid metric name ${family.name}`);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      lines.push(`${family.name}${sample.suffix ?? ''}${labelText(sample.labels)} ${formatValue(sample.value)}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
