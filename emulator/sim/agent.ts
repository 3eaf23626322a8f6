/**
 * A simulated node agent (`startSimAgent`, herd-node's behaviour, ARCHITECTURE.md §8.2–8.3): fronts a simulated Ollama,
 * runs the sidecars it is given on their own ports, and POSTs the full heartbeat to `{routerUrl}/heartbeat`
 * at once and then every `intervalMs`. A failed heartbeat is counted and retried next interval, never thrown.
 */
import { BASE_USED_GB, type HeartbeatHost, type HeartbeatPayload, heartbeatPayload } from './heartbeat';
import { type ImageModel, type ImageSidecar, startImageSidecar } from './image-sidecar';
import { type SimNode, type SimNodeOptions, startSimNode } from './ollama-node';
import {
  startTextEmbeddingSidecar,
  type TextEmbeddingModel,
  type TextEmbeddingSidecar,
} from './text-embedding-sidecar';
import { startTranscriptionSidecar, type TranscriptionSidecar } from './transcription-sidecar';

export interface SimAgentOptions {
  /** Default: `agent-<ollama port>`. */
  readonly nodeId?: string;
  /** Router base URL; heartbeats go to `POST {routerUrl}/heartbeat`. None = no heartbeats are sent. */
  readonly routerUrl?: string;
  /** A node key (the router's FLEET_NODE_KEYS), sent as `Authorization: Bearer <key>` on every heartbeat. */
  readonly nodeKey?: string;
  /** Default 5000. */
  readonly intervalMs?: number;
  /** The Ollama it fronts; when absent the agent starts one from `ollamaOptions` (and closes it on stop). */
  readonly ollama?: SimNode;
  readonly ollamaOptions?: SimNodeOptions;
  readonly host?: string;
  /** Default 64; with a performance model, the memory of its hardware class. */
  readonly totalGb?: number;
  /** Fixed memory use; default: 6 GB plus the loaded models (the loaded models alone with a performance model). */
  readonly usedGb?: number;
  readonly diskTotalGb?: number;
  /** Default `Apple M4 Max`; with a performance model, its hardware class's chip. */
  readonly chip?: string;
  /** Default 546; with a performance model, its hardware class's bandwidth. */
  readonly memoryBandwidthGbps?: number;
  /** Default `apple_silicon`, the value herd-node hard-codes; with a performance model, its class's. */
  readonly arch?: string;
  readonly coresPhysical?: number;
  readonly agentVersion?: string;
  /** Image models; the image sidecar runs only when given. */
  readonly image?: readonly ImageModel[];
  /** Speech-to-text models (`binary` defaults to `mlx-qwen3-asr`); the sidecar runs only when given. */
  readonly transcription?: readonly { readonly name: string; readonly binary?: string }[];
  /** Text-embedding and rerank models; the sidecar runs only when given. */
  readonly textEmbedding?: readonly TextEmbeddingModel[];
  /** Image sidecar time per step, ms. */
  readonly imageStepMs?: number;
  /** How long a transcription job stays `processing`, ms. */
  readonly transcriptionJobMs?: number;
}

export interface SimAgent {
  readonly nodeId: string;
  readonly node: SimNode;
  readonly image: ImageSidecar | undefined;
  readonly transcription: TranscriptionSidecar | undefined;
  readonly textEmbedding: TextEmbeddingSidecar | undefined;
  /** Heartbeats the router accepted (2xx). */
  readonly heartbeatsSent: number;
  /** Heartbeats that failed (transport error or non-2xx), since start. */
  readonly heartbeatFailures: number;
  /** The payload it would send now. */
  payload(): HeartbeatPayload;
  /** Sends one heartbeat now; resolves with the router's JSON reply, rejects on a transport error or non-2xx. */
  sendHeartbeat(): Promise<unknown>;
  /** Stops the heartbeats and POSTs `{"node_id", "draining": true}`; resolves with the reply. */
  drain(): Promise<unknown>;
  /** Starts heartbeats again after `drain()`. */
  resume(): void;
  /** Stops heartbeats, closes the sidecars and the Ollama it started. */
  stop(): Promise<void>;
}

const HEARTBEAT_TIMEOUT_MS = 10_000;

interface Sidecars {
  readonly image: ImageSidecar | undefined;
  readonly transcription: TranscriptionSidecar | undefined;
  readonly textEmbedding: TextEmbeddingSidecar | undefined;
}

async function startSidecars(options: SimAgentOptions): Promise<Sidecars> {
  const host = options.host ?? '127.0.0.1';
  const { image, transcription, textEmbedding } = options;
  const stepMs = options.imageStepMs === undefined ? {} : { stepMs: options.imageStepMs };
  const jobMs = options.transcriptionJobMs === undefined ? {} : { jobMs: options.transcriptionJobMs };
  const models = transcription?.map((m) => ({ name: m.name, binary: m.binary ?? 'mlx-qwen3-asr' }));
  return {
    image: image === undefined ? undefined : await startImageSidecar({ host, models: image, ...stepMs }),
    transcription: models === undefined ? undefined : await startTranscriptionSidecar({ host, models, ...jobMs }),
    textEmbedding:
      textEmbedding === undefined ? undefined : await startTextEmbeddingSidecar({ host, models: textEmbedding }),
  };
}

/** The machine the agent describes: its options first, then the node's hardware class, then herd-node's defaults. */
function hostOf(options: SimAgentOptions, node: SimNode): HeartbeatHost {
  const hardware = node.performanceModel()?.hardware;
  return {
    nodeId: options.nodeId ?? `agent-${node.port}`,
    arch: options.arch ?? hardware?.arch ?? 'apple_silicon',
    chip: options.chip ?? hardware?.chip ?? hardware?.name ?? 'Apple M4 Max',
    memoryBandwidthGbps: options.memoryBandwidthGbps ?? hardware?.memoryBandwidthGbps ?? 546,
    agentVersion: options.agentVersion ?? '0.10.0',
    coresPhysical: options.coresPhysical ?? 16,
    totalGb: options.totalGb ?? hardware?.memoryGb ?? 64,
    usedGb: options.usedGb,
    baseUsedGb: hardware === undefined ? BASE_USED_GB : 0,
    diskTotalGb: options.diskTotalGb ?? 1000,
  };
}

async function postJson(url: string, body: unknown, nodeKey: string | undefined, signal: AbortSignal) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (nodeKey !== undefined) headers['authorization'] = `Bearer ${nodeKey}`;
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
  const text = await response.text();
  const reply: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) throw new Error(`heartbeat answered ${response.status}: ${text}`);
  return reply;
}

/** Sends heartbeats every interval (the first at once), counting failures instead of throwing them. */
class HeartbeatLoop {
  sent = 0;
  failures = 0;
  sinceSuccess = 0;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private inFlight: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly send: () => Promise<unknown>,
    private readonly intervalMs: number,
  ) {}

  /** One heartbeat now: resolves with the reply, rejects (and counts) on failure. */
  async beat(): Promise<unknown> {
    try {
      const reply = await this.send();
      this.sent++;
      this.sinceSuccess = 0;
      return reply;
    } catch (error) {
      this.failures++;
      this.sinceSuccess++;
      throw error;
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.tick();
  }

  /** Stops the loop; resolves once a heartbeat already on the wire has finished. */
  async halt(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private async tick(): Promise<void> {
    this.inFlight = this.beat().catch(() => undefined);
    await this.inFlight;
    if (this.running) this.timer = setTimeout(() => void this.tick(), this.intervalMs).unref();
  }
}

export async function startSimAgent(options: SimAgentOptions = {}): Promise<SimAgent> {
  const ownsNode = options.ollama === undefined;
  const node = options.ollama ?? (await startSimNode({ host: options.host ?? '127.0.0.1', ...options.ollamaOptions }));
  const sidecars = await startSidecars(options);
  const host = hostOf(options, node);
  const stopper = new AbortController();
  const post = (body: unknown): Promise<unknown> => {
    if (options.routerUrl === undefined) return Promise.reject(new Error('no routerUrl configured'));
    const signal = AbortSignal.any([stopper.signal, AbortSignal.timeout(HEARTBEAT_TIMEOUT_MS)]);
    return postJson(`${options.routerUrl.replace(/\/+$/, '')}/heartbeat`, body, options.nodeKey, signal);
  };
  const payload = (): HeartbeatPayload => {
    const failures = { connectionFailures: loop.sinceSuccess, connectionFailuresTotal: loop.failures };
    return heartbeatPayload(host, { node, ...sidecars, ...failures }, false);
  };
  const loop = new HeartbeatLoop(() => post(payload()), options.intervalMs ?? 5000);
  const start = (): void => {
    if (options.routerUrl !== undefined) loop.start();
  };
  start();
  return {
    nodeId: host.nodeId,
    node,
    ...sidecars,
    get heartbeatsSent() {
      return loop.sent;
    },
    get heartbeatFailures() {
      return loop.failures;
    },
    payload,
    sendHeartbeat: () => loop.beat(),
    drain: async () => {
      await loop.halt();
      return post({ node_id: host.nodeId, draining: true });
    },
    resume: start,
    stop: async () => {
      stopper.abort();
      await loop.halt();
      await Promise.all([sidecars.image?.close(), sidecars.transcription?.close(), sidecars.textEmbedding?.close()]);
      if (ownsNode) await node.close();
    },
  };
}
