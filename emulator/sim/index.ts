/**
 * The simulated fleet's public API: simulated Ollama nodes, node agents with their sidecars, the demo
 * fleet, the model catalogue and the fault knobs. It stands in for real GPU machines in tests, benchmarks
 * and `npm run demo`, and shares no code with the router.
 */
export { type SimAgent, type SimAgentOptions, startSimAgent } from './agent';
export { CATALOG, type CatalogModel, catalogEntry, type ModelCapability, modelDigest, withTag } from './catalog';
export type { FaultPatch, FaultState, SimFaults } from './faults';
export { type SimFleet, type SimFleetOptions, startSimFleet } from './fleet';
export type { HeartbeatPayload } from './heartbeat';
export {
  DEFAULT_IMAGE_MODELS,
  type ImageModel,
  type ImageSidecar,
  type ImageSidecarOptions,
  startImageSidecar,
} from './image-sidecar';
export {
  DEFAULT_NODE_MODELS,
  type SimLoadedModel,
  type SimNode,
  type SimNodeOptions,
  type SimNodeSnapshot,
  type SimRequestRecord,
  startSimNode,
} from './ollama-node';
export { HARDWARE_CLASSES, type HardwareSpec, resolveHardware } from './performance/hardware';
export {
  type ModelRates,
  performanceModel,
  type SimPerformance,
  type SimPerformanceModel,
} from './performance/model';
export type { SimPerformanceStats } from './performance/stats';
export { MAX_IMAGE_SIDE, PNG_SIGNATURE, readPngSize } from './png';
export type { SimSidecar } from './sidecar';
export {
  DEFAULT_TEXT_EMBEDDING_MODELS,
  rerankLogit,
  rerankScore,
  startTextEmbeddingSidecar,
  type TextEmbeddingModel,
  type TextEmbeddingSidecar,
  type TextEmbeddingSidecarOptions,
} from './text-embedding-sidecar';
export {
  DEFAULT_TRANSCRIPTION_MODELS,
  startTranscriptionSidecar,
  type TranscriptionModel,
  type TranscriptionSidecar,
  type TranscriptionSidecarOptions,
} from './transcription-sidecar';
