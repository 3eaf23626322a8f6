/**
 * Polls the nodes listed in FLEET_NODES (ARCHITECTURE.md §8.1): `/api/tags`, `/api/ps` and `/api/version`
 * each pass, plus `/api/show` once per model digest for capabilities and context length (reused from
 * the stored record while the digest is unchanged). A good poll refreshes the node's `lastSeenAt`; a
 * failed one records the error and lets the node age to degraded and offline.
 */

import { nodeFromPoll, pollFailed, type ShowInfo } from '../../core/fleet/from-poll';
import type { NodeRecord } from '../../core/fleet/node';
import { nodeCallWords, technicalCause } from '../../core/fleet/node-failure';
import { parseOllamaPs, parseOllamaTags, parseOllamaVersion } from '../../core/wire/ollama-node';
import type { DescribeModels } from '../node-client/describe-models';
import { callNodeJson } from '../node-client/node-client';
import type { ListedNode } from '../platform/config';

/** Each call to a node, unless the options say otherwise. */
const POLL_TIMEOUT_MS = 5000;

export interface PollOptions {
  readonly now: () => number;
  readonly describe: DescribeModels;
  /** Budget for each call to a node. */
  readonly timeoutMs?: number;
}

async function getParsed<T>(
  url: string,
  path: string,
  parse: (body: unknown) => { ok: true; value: T } | { ok: false; field: string; message: string },
  options: PollOptions,
  body?: unknown,
): Promise<T> {
  const reply = await callNodeJson(url, path, {
    timeoutMs: options.timeoutMs ?? POLL_TIMEOUT_MS,
    ...(body === undefined ? {} : { body }),
  });
  const parsed = parse(reply);
  if (!parsed.ok) throw new Error(`${path}: ${parsed.field} ${parsed.message}`);
  return parsed.value;
}

/** Capabilities and context length per model: kept from the record while the digest holds, else asked. */
async function showInfos(
  url: string,
  models: readonly { name: string; digest?: string | null | undefined }[],
  previous: NodeRecord | undefined,
  describe: DescribeModels,
): Promise<Map<string, ShowInfo>> {
  const shows = new Map<string, ShowInfo>();
  const toAsk: string[] = [];
  for (const model of models) {
    const known = previous?.models.find((entry) => entry.name === model.name);
    if (known?.described === true && known.digest === (model.digest ?? '')) {
      shows.set(model.name, {
        capabilities: known.capabilities,
        ...(known.contextLength !== undefined ? { contextLength: known.contextLength } : {}),
      });
    } else {
      toAsk.push(model.name);
    }
  }
  for (const [name, show] of await describe(url, toAsk)) shows.set(name, show);
  return shows;
}

/** One pass over one listed node; never throws — a failure is recorded on the node. */
export async function pollNode(
  listed: ListedNode,
  previous: NodeRecord | undefined,
  options: PollOptions,
): Promise<NodeRecord> {
  try {
    const [tags, ps, version] = await Promise.all([
      getParsed(listed.url, '/api/tags', parseOllamaTags, options),
      getParsed(listed.url, '/api/ps', parseOllamaPs, options),
      getParsed(listed.url, '/api/version', parseOllamaVersion, options).then(
        (reply) => reply.version,
        () => undefined,
      ),
    ]);
    const shows = await showInfos(listed.url, tags.models ?? [], previous, options.describe);
    return nodeFromPoll({ id: listed.id, url: listed.url, tags, ps, version, shows, previous, now: options.now() });
  } catch (error) {
    // The node's record is the operator's view (/fleet/status): the technical cause, URL and code included.
    // Its words are what a client may read of it, in a 503 that names the node as ejected.
    const failure = {
      detail: technicalCause(error),
      words: nodeCallWords(error, options.timeoutMs ?? POLL_TIMEOUT_MS),
    };
    const now = options.now();
    return pollFailed(previous ?? neverSeen(listed, now), failure, now);
  }
}

/** A listed node that has not answered yet: known, but offline until its first good poll. */
function neverSeen(listed: ListedNode, now: number): NodeRecord {
  return {
    id: listed.id,
    source: 'listed',
    url: listed.url,
    firstSeenAt: now,
    lastSeenAt: 0,
    draining: false,
    hardware: {},
    models: [],
    loaded: [],
    recentlyUnloaded: {},
    requestsActive: 0,
    numParallel: 1,
    sidecars: {},
  };
}
