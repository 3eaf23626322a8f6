/**
 * `POST /api/pull` (spec §4.4, §2 "Pull progress record", §3, §7; anchor §4.5): pulls a model onto a
 * node — the one named by `node_id`, or the one `choosePullNode` picks — and relays Ollama's progress.
 * In order: 400 missing name or a model that is not runtime-native (with install instructions), then the
 * exchange with the node (lib/services/dispatch/routed-exchange, reached as a named node:
 * lib/services/dispatch/named-node-reach): 404 unknown node, 503 no node can take it, 409 while the same
 * model is being pulled (a lease in the table, so it holds across router instances; the exchange holds it,
 * ./keep-pull-lease renews it while the pull runs, and the exchange gives it back when the pull ends,
 * whichever way), then the node's stream (`relayPull`). On `success` the model is
 * recorded on the node before the client hears it. The exchange writes one trace per pull, style `pull`.
 */

import { BadRequestError, ConflictError, type RouterError, UpstreamError } from '../../core/errors';
import type { NodeView } from '../../core/fleet/node';
import { mergeTags } from '../../core/scoring/tags';
import { type PullRequest, pullRequestSchema } from '../../core/wire/pull';
import type { TraceRecorder } from '../../services/analytics/trace';
import {
  type Hold,
  type NamedNodeInput,
  type NamedNodeServed,
  namedNode,
} from '../../services/dispatch/named-node-reach';
import { type ExchangeEnd, exchange, nodeRefusal } from '../../services/dispatch/routed-exchange';
import { headerValue } from '../../services/http/header-value';
import { readJsonBody } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { DescribeModels } from '../../services/node-client/describe-models';
import { openNodeStream, readNodeBody } from '../../services/node-client/node-stream';
import type { FleetConfig } from '../../services/platform/config';
import type { FleetRegistry } from '../../services/registry/registry';
import { createPullLockRepository, type PullLocks } from '../../services/store/pull-lock-repository';
import type { Table } from '../../services/store/table';
import { choosePullNode } from './choose-pull-node';
import { keepPullLease } from './keep-pull-lease';
import { knownNonNativeMessage, nonNativeModelMessage } from './non-native-model';
import { relayPull } from './pull-converter';
import { canonicalPullName, pullNameOf } from './pull-name';
import { pullNodeBody } from './pull-node-body';
import { recordPulledModel } from './record-pulled-model';

/** What a pull uses from the instance: the fleet, the table its locks live in and their lease, the traces. */
export interface PullDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'recordModel'>;
  readonly describe: DescribeModels;
  readonly table: Pick<Table, 'takeLease' | 'renewLease' | 'deleteItem'>;
  readonly config: Pick<FleetConfig, 'pullLeaseMs'>;
  readonly traces: TraceRecorder;
}

/** A pull answers its first line once the node has looked up the manifest; a slow registry takes a while. */
const FIRST_BYTE_TIMEOUT_MS = 120_000;

/** The node refused before streaming: its status and message for 4xx, 502 for 5xx. */
function nodeFailure(nodeId: string, status: number, body: Buffer): RouterError {
  if (status < 500) return nodeRefusal({ status, body });
  // A node's 5xx output is for the operator's log, never the client's text.
  return new UpstreamError(`node '${nodeId}' failed the pull (HTTP ${status})`, status, {
    code: 'pull_failed',
    detail: `node '${nodeId}' answered the pull ${status}: ${body.toString('utf8').slice(0, 500)}`,
  });
}

/** Records the pulled model on the node; a failure here never fails the pull, it is only logged. */
async function recordSuccess(deps: PullDeps, node: NodeView, name: string, layerBytes: number): Promise<void> {
  try {
    await recordPulledModel(node, name, layerBytes, deps);
  } catch (error) {
    console.error(`recording the model pulled onto ${node.id} failed: ${String(error)}`);
  }
}

/**
 * The pull's lock on `name`, taken for `node` (409 while another pull holds it) and renewed until the
 * exchange gives it back: its release stops the renewals, then deletes the lock.
 */
async function takePullLock(locks: PullLocks, name: string, node: NodeView): Promise<Hold> {
  const model = canonicalPullName(name);
  const lease = await locks.acquire(model, { nodeId: node.id });
  if (lease === undefined) throw new ConflictError(`model '${name}' is already being pulled`);
  const stopRenewing = keepPullLease({ lease, model });
  return {
    release: () => {
      stopRenewing();
      return lease
        .release()
        .catch((error: unknown) => console.error(`releasing the pull lock failed: ${String(error)}`));
    },
  };
}

/** The node's reply, with the pull's lock held: its refusal, or its progress relayed or read whole. */
async function settlePull(
  deps: PullDeps,
  request: PullRequest,
  served: NamedNodeServed,
  response: ResponseSink,
): Promise<ExchangeEnd<void>> {
  const { reply, node, model } = served;
  if (reply.status >= 400) {
    const refusal = await readNodeBody(reply, 1 << 16).catch(() => Buffer.alloc(0));
    throw nodeFailure(node.id, reply.status, refusal);
  }
  const outcome = await relayPull({
    reply,
    response,
    nodeId: node.id,
    streaming: request.stream !== false,
    headers: { 'x-fleet-node': headerValue(node.id) },
    onSuccess: (layerBytes) => recordSuccess(deps, node, model, layerBytes),
    // The exchange gives it back too, on every other way out; the second release does nothing.
    releaseLock: () => served.hold.release(),
  });
  return outcome.status === 'failed' || outcome.status === 'incomplete'
    ? { status: outcome.status, value: undefined, fields: { error: outcome.error } }
    : { status: outcome.status, value: undefined };
}

function nonEmpty(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function tagsOf(request: HttpRequest, body: PullRequest): string[] {
  const metadata = body['metadata'];
  return mergeTags({
    metadataTags: typeof metadata === 'object' && metadata !== null ? Reflect.get(metadata, 'tags') : undefined,
    headerValue: request.header('x-service-tags'),
    user: body['user'],
  });
}

export async function servePull(deps: PullDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const body = readJsonBody(request, pullRequestSchema);
  const name = pullNameOf(body);
  // The names refused whatever the fleet holds are refused before the fleet is read.
  const known = knownNonNativeMessage(name);
  if (known !== undefined) throw new BadRequestError(known, 'name');
  const snapshot = await deps.registry.snapshot();
  const sidecarOnly = nonNativeModelMessage(name, snapshot);
  if (sidecarOnly !== undefined) throw new BadRequestError(sidecarOnly, 'name');
  const locks = createPullLockRepository(deps.table, { leaseMs: deps.config.pullLeaseMs });
  const input: NamedNodeInput = {
    signal: response.clientGone,
    traced: { request, style: 'pull', requestedModel: name, tags: tagsOf(request, body) },
    model: name,
    choose: () => choosePullNode(snapshot, name, nonEmpty(body.node_id)).node,
    hold: (node) => takePullLock(locks, name, node),
    send: (node, signal) =>
      openNodeStream(node.url, '/api/pull', pullNodeBody(body, name), {
        signal,
        firstByteTimeoutMs: FIRST_BYTE_TIMEOUT_MS,
      }),
  };
  await exchange(namedNode, deps, input, (served) => settlePull(deps, body, served, response));
}
