/**
 * Which speech-to-text model a transcription goes to (spec §4.5, anchor §4.4): the routing request the
 * dispatcher ranks nodes for. A client that names a `model` gets that model (the dispatcher answers 404
 * for one no node has, 400 for one that is not a speech model). Without one, any ASR model goes: the
 * model with the most idle nodes (nodes whose sidecar reports no job running), then the most nodes
 * that can take work, then the first by name, is asked for, and every other ASR model of the fleet
 * follows as a fallback, so a busy or failing model moves on to another rather than failing the
 * request. A fleet with no ASR model anywhere, offline nodes included, is a 404 that says how to
 * install one. Pure.
 */
import { NotFoundError } from '../../core/errors';
import type { FleetSnapshot, NodeView } from '../../core/fleet/node';
import { isPlaceable } from '../../core/fleet/snapshot';
import type { RoutingRequest } from '../../core/scoring/routing-request';

export const NO_ASR_MODEL_MESSAGE =
  "no node has a speech-to-text model installed: install one on a node agent's machine " +
  "(pip install 'mlx-qwen3-asr[serve]'; the agent then reports it in its heartbeat's transcription sidecar)";

interface ModelStanding {
  readonly name: string;
  /** Nodes that can take work now (online or degraded, not draining) and are not transcribing. */
  idle: number;
  /** Nodes that can take work now. */
  placeable: number;
}

function transcriptionModelNames(node: NodeView): readonly string[] {
  const models = node.sidecars.transcription?.models ?? [];
  return models.filter((model) => model.kind === 'transcription').map((model) => model.name);
}

/** Every ASR model the fleet knows, with how many nodes could serve it now and how many are idle. */
function modelStandings(snapshot: FleetSnapshot): ModelStanding[] {
  const standings = new Map<string, ModelStanding>();
  for (const node of snapshot.nodes) {
    const placeable = isPlaceable(node);
    const idle = placeable && node.sidecars.transcription?.busy !== true;
    for (const name of new Set(transcriptionModelNames(node))) {
      let standing = standings.get(name);
      if (standing === undefined) {
        standing = { name, idle: 0, placeable: 0 };
        standings.set(name, standing);
      }
      if (placeable) standing.placeable += 1;
      if (idle) standing.idle += 1;
    }
  }
  return [...standings.values()];
}

function compareStandings(a: ModelStanding, b: ModelStanding): number {
  if (a.idle !== b.idle) return b.idle - a.idle;
  if (a.placeable !== b.placeable) return b.placeable - a.placeable;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The ASR models in the order they are asked for when the client named none. */
export function rankTranscriptionModels(snapshot: FleetSnapshot): readonly string[] {
  return modelStandings(snapshot)
    .sort(compareStandings)
    .map((standing) => standing.name);
}

/** The routing request for a transcription; 404 when no node has any ASR model. */
export function transcriptionRouting(snapshot: FleetSnapshot, requestedModel: string | undefined): RoutingRequest {
  const ranked = rankTranscriptionModels(snapshot);
  const [best, ...others] = ranked;
  if (best === undefined) throw new NotFoundError(NO_ASR_MODEL_MESSAGE, 'model_not_found');
  if (requestedModel !== undefined) {
    return { model: requestedModel, fallbackModels: [], kind: 'transcription', needsVision: false };
  }
  return { model: best, fallbackModels: others, kind: 'transcription', needsVision: false };
}
