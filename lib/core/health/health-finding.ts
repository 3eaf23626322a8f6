/**
 * One finding of the health checks (issue 22 item 3), in the reference's shape (research
 * anchor-ollama-herd.md §6.4): `{check_id, severity, title, description, fix, node_id, data}`, and the
 * type every check has (issue 44 item 1): a title that names what it looks at, the most severe finding it
 * can raise, why it cannot judge a set of inputs (no data for it, a feature off) and what it finds. Pure.
 */
import type { HealthInputs } from './health-inputs';

export type Severity = 'critical' | 'warning' | 'info';

export interface HealthFinding {
  readonly check_id: string;
  readonly severity: Severity;
  readonly title: string;
  readonly description: string;
  readonly fix: string;
  /** The node it is about; null for the fleet. */
  readonly node_id: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/** A check: what it looks at, and what it finds in the inputs (nothing on a healthy fleet). */
export interface HealthCheck {
  /** What it looks at, in a few words that read the same whether it passed or failed. */
  readonly title: string;
  /** The most severe finding it can raise. */
  readonly severity: Severity;
  /** Why it cannot judge these inputs (no data for it, the feature off); undefined when it can. */
  readonly skip?: (inputs: HealthInputs) => string | undefined;
  readonly run: (inputs: HealthInputs) => HealthFinding[];
}

/** A group of checks by id: one file per group, every id listed once. */
export type HealthChecks = Readonly<Record<string, HealthCheck>>;

export interface FindingFields {
  readonly severity: Severity;
  readonly title: string;
  readonly description: string;
  readonly fix: string;
  readonly nodeId?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

export function finding(checkId: string, fields: FindingFields): HealthFinding {
  return {
    check_id: checkId,
    severity: fields.severity,
    title: fields.title,
    description: fields.description,
    fix: fields.fix,
    node_id: fields.nodeId ?? null,
    data: fields.data ?? {},
  };
}
