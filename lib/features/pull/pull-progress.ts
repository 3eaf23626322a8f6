/**
 * Reads a node's pull stream line by line (spec §2 "Pull progress record", §3; protocols §2.10): each
 * decoded NDJSON line is progress (`pulling manifest`, `pulling <digest>` with `digest`, `total`,
 * `completed`, `verifying sha256 digest`, …), the final `success`, the node's `{"error": ...}`, or a line
 * the router cannot read. It also adds up the layers' sizes (each digest once), the model's size on disk
 * when the node's own listing cannot be had. A small synchronous state machine. Pure.
 */
import type { DecodedLine } from '../../core/stream/ndjson-decoder';
import { parsePullProgressLine } from '../../core/wire/pull';

export type PullLine =
  | { readonly kind: 'progress' }
  | { readonly kind: 'success' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'malformed'; readonly message: string };

export interface PullProgress {
  observe(line: DecodedLine): PullLine;
  /** Sum of the `total` of every layer seen so far, each digest counted once. */
  layerBytes(): number;
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const nested = typeof error === 'object' && error !== null ? Reflect.get(error, 'message') : undefined;
  return typeof nested === 'string' ? nested : JSON.stringify(error);
}

export function createPullProgress(): PullProgress {
  const layers = new Map<string, number>();
  return {
    observe(line) {
      if (!line.ok) return { kind: 'malformed', message: line.error };
      const parsed = parsePullProgressLine(line.value);
      if (!parsed.ok) return { kind: 'malformed', message: `${parsed.field}: ${parsed.message}` };
      const { status, digest, total, error } = parsed.value;
      if (error !== undefined && error !== null) return { kind: 'error', message: errorText(error) };
      if (status === undefined || status === null) return { kind: 'malformed', message: 'a line without status' };
      if (digest !== undefined && digest !== null && total !== undefined && total !== null) layers.set(digest, total);
      return status === 'success' ? { kind: 'success' } : { kind: 'progress' };
    },
    layerBytes() {
      let sum = 0;
      for (const total of layers.values()) sum += total;
      return sum;
    },
  };
}
