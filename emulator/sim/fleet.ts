/**
 * The demo and test fleet (`startSimFleet`): three simulated machines that together serve every model
 * kind — `gpu-large` (agent: big chat models, Ollama embeddings and a native image model, the image and
 * text-embedding/rerank sidecars), `gpu-small` (agent: small chat and vision models, speech-to-text) and
 * `ollama-plain` (a bare Ollama to list in FLEET_NODES and poll).
 */
import { type SimAgent, startSimAgent } from './agent';
import { CATALOG, type CatalogModel } from './catalog';
import { DEFAULT_IMAGE_MODELS } from './image-sidecar';
import { type SimNode, startSimNode } from './ollama-node';
import { DEFAULT_TEXT_EMBEDDING_MODELS } from './text-embedding-sidecar';
import { DEFAULT_TRANSCRIPTION_MODELS } from './transcription-sidecar';

export interface SimFleetOptions {
  /** Router the agents send heartbeats to; none = agents run without heartbeats. */
  readonly routerUrl?: string;
  /** A node key (FLEET_NODE_KEYS) the agents send with their heartbeats. */
  readonly nodeKey?: string;
  /** Default 5000. */
  readonly heartbeatIntervalMs?: number;
  /** Time to first token on every node, ms (default 50). */
  readonly ttftMs?: number;
  /** Default 40; `Infinity` = no delay between tokens. */
  readonly tokensPerSecond?: number;
  readonly host?: string;
}

export interface SimFleet {
  /** Every simulated Ollama: gpu-large, gpu-small, ollama-plain. */
  readonly nodes: readonly SimNode[];
  /** The node agents: gpu-large, gpu-small. */
  readonly agents: readonly SimAgent[];
  /** A FLEET_NODES value for the listed nodes: `ollama-plain=http://127.0.0.1:PORT`. */
  readonly listedNodes: string;
  /** The node with this id (throws for an unknown id). */
  node(id: string): SimNode;
  stop(): Promise<void>;
}

function models(names: readonly string[]): CatalogModel[] {
  return CATALOG.filter((entry) => names.includes(entry.name));
}

export async function startSimFleet(options: SimFleetOptions = {}): Promise<SimFleet> {
  const host = options.host ?? '127.0.0.1';
  const timing = {
    host,
    ...(options.ttftMs === undefined ? {} : { ttftMs: options.ttftMs }),
    ...(options.tokensPerSecond === undefined ? {} : { tokensPerSecond: options.tokensPerSecond }),
  };
  const agentBase = {
    host,
    ...(options.routerUrl === undefined ? {} : { routerUrl: options.routerUrl }),
    ...(options.nodeKey === undefined ? {} : { nodeKey: options.nodeKey }),
    intervalMs: options.heartbeatIntervalMs ?? 5000,
  };
  const large = await startSimNode({
    ...timing,
    id: 'gpu-large',
    models: models([
      'qwen2.5:32b',
      'gpt-oss:20b',
      'qwen3:8b',
      'llama3.2:3b',
      'nomic-embed-text:latest',
      'mxbai-embed-large:latest',
      'x/z-image-turbo:latest',
    ]),
    loaded: ['qwen3:8b', 'nomic-embed-text:latest'],
    numParallel: 4,
    maxLoadedModels: 4,
  });
  const small = await startSimNode({
    ...timing,
    id: 'gpu-small',
    models: models(['llama3.2:1b', 'llama3.2:3b', 'gemma3:12b', 'llava:7b', 'nomic-embed-text:latest']),
    loaded: ['llama3.2:3b'],
    numParallel: 2,
  });
  const plain = await startSimNode({
    ...timing,
    id: 'ollama-plain',
    models: models(['llama3.2:3b', 'qwen3:8b', 'mxbai-embed-large:latest']),
    loaded: ['llama3.2:3b'],
  });
  const agents = [
    await startSimAgent({
      ...agentBase,
      nodeId: 'gpu-large',
      ollama: large,
      totalGb: 192,
      chip: 'Apple M3 Ultra',
      memoryBandwidthGbps: 819,
      coresPhysical: 24,
      image: DEFAULT_IMAGE_MODELS,
      textEmbedding: DEFAULT_TEXT_EMBEDDING_MODELS,
    }),
    await startSimAgent({
      ...agentBase,
      nodeId: 'gpu-small',
      ollama: small,
      totalGb: 48,
      chip: 'Apple M4 Pro',
      memoryBandwidthGbps: 273,
      coresPhysical: 12,
      transcription: DEFAULT_TRANSCRIPTION_MODELS,
    }),
  ];
  const nodes = [large, small, plain];
  return {
    nodes,
    agents,
    listedNodes: `${plain.id}=${plain.url}`,
    node: (id) => {
      const found = nodes.find((node) => node.id === id);
      if (found === undefined) throw new Error(`no simulated node ${id}`);
      return found;
    },
    stop: async () => {
      await Promise.all(agents.map((agent) => agent.stop()));
      await Promise.all(nodes.map((node) => node.close()));
    },
  };
}
