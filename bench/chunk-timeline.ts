/**
 * A stream as its client sees it (issue 42, many streams): the response's text fed as it arrives, each
 * content chunk found by the `token<n> ` the fast node wrote into it (./fast-node) and stamped with the time
 * its line arrived — NDJSON lines and SSE `data:` lines alike, so one reader serves the Ollama and the
 * OpenAI style. A line with one token is one chunk forwarded on its own; a line with two is chunks merged;
 * a token that does not follow the one before is a chunk lost or reordered. The gaps between arrivals are
 * what a reader of the stream waits between tokens. Pure: the caller gives the clock.
 */

const TOKEN = /token(\d+) /g;

export interface ChunkTimeline {
  /** `text` arrived at `atMs`; a line cut between two arrivals counts when its end comes. */
  push(text: string, atMs: number): void;
  summary(): ChunkSummary;
}

export interface ChunkSummary {
  /** Arrival time of each content chunk, in order. */
  readonly arrivals: readonly number[];
  /** Lines that carried more than one token. */
  readonly merged: number;
  /** Tokens that did not follow the one before (lost, repeated or reordered). */
  readonly outOfOrder: number;
}

export function createChunkTimeline(): ChunkTimeline {
  const arrivals: number[] = [];
  let merged = 0;
  let outOfOrder = 0;
  let last = 0;
  let pending = '';
  let pendingAt = 0;
  const line = (text: string, atMs: number) => {
    let tokens = 0;
    for (const found of text.matchAll(TOKEN)) {
      tokens += 1;
      const number = Number(found[1]);
      if (number !== last + 1) outOfOrder += 1;
      last = number;
    }
    if (tokens === 0) return;
    if (tokens > 1) merged += 1;
    arrivals.push(atMs);
  };
  return {
    push(text, atMs) {
      let start = 0;
      for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
        line(pending + text.slice(start, end), atMs);
        pending = '';
        start = end + 1;
      }
      pending += text.slice(start);
      pendingAt = atMs;
    },
    summary() {
      // A last line without its newline still arrived, whole once the last of it did.
      if (pending !== '') line(pending, pendingAt);
      pending = '';
      return { arrivals, merged, outOfOrder };
    },
  };
}

/** The time between each arrival and the one before it. */
export function gapsBetween(arrivals: readonly number[]): number[] {
  return arrivals.slice(1).map((at, index) => at - (arrivals[index] ?? at));
}
