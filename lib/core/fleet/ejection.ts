/**
 * An ejection (issue 19 item 4): one service of a node — its Ollama, or one of its sidecars — taken out
 * of routing for a while after it failed. The fleet's domain model of it: what the scorer eliminates
 * (../scoring/rank-nodes), what the status views show, and what lib/services/dispatch/outlier-ejection
 * decides and keeps. Pure.
 */
import type { ModelPlacement } from './node';

/** The service of a node that answered (or did not): its Ollama, or one of its sidecars. */
export type Backend = ModelPlacement['backend'];

export interface EjectionTarget {
  readonly nodeId: string;
  readonly backend: Backend;
}

/** The key of a node's service in `ejections()`: the node id for its Ollama, `id (sidecar)` for a sidecar. */
export function targetKey(nodeId: string, backend: Backend): string {
  return backend === 'ollama' ? nodeId : `${nodeId} (${backend})`;
}

/** What went wrong on an attempt, as far as ejection cares. */
export type FailureCause = 'connect' | 'first-byte-timeout' | 'poll' | 'transport' | 'server-error';

export interface Ejection extends EjectionTarget {
  /** Epoch ms when it was ejected. */
  readonly at: number;
  /** Epoch ms when the node returns to routing. */
  readonly until: number;
  /** What ejected it, in words (`3 failures in a row: answered 500`). */
  readonly reason: string;
  /** How many times in a row it has been ejected (1 for the first). */
  readonly level: number;
  /** What kind of failure ejected it; one ejected by a failed poll returns at its next good poll. */
  readonly cause: FailureCause;
  /**
   * The router instance that saw the failure (issue 45): this one's id for its own ejections, another's
   * for one it read from the table (./shared-ejections).
   */
  readonly by?: string;
}
