/**
 * Which pulls are refused because the model is not runtime-native (spec §4.4 `POST /api/pull`: 400 with
 * install instructions; anchor §4.5): image models served by mflux or DiffusionKit, speech-to-text
 * models served by mlx-qwen3-asr, MLX models (`mlx:` names, `mlx-community/…` repositories), and any
 * model the fleet knows only from a node agent's sidecar (image, transcription, text embedding and
 * rerank). Ollama's own image models (`x/z-image-turbo`) are native: only the bare names are refused.
 * Pure.
 */
import type { FleetSnapshot, NodeView, SidecarModel } from '../../core/fleet/node';
import { modelNameKeys } from '../../core/fleet/snapshot';

const MFLUX = 'uv tool install mflux';
const DIFFUSIONKIT = 'uv tool install diffusionkit';
const QWEN3_ASR = "pip install 'mlx-qwen3-asr[serve]'";
const MLX_LM = 'uv tool install mlx-lm';

/** Image and speech models by their untagged name, with the package that serves them. */
const KNOWN_NON_NATIVE: readonly (readonly [RegExp, string, string])[] = [
  [/^(z-image-turbo|flux-dev|flux-schnell)$/, 'an image model served by mflux', MFLUX],
  [/^(sd3-medium|sd3\.5-large)$/, 'an image model served by DiffusionKit', DIFFUSIONKIT],
  [/^qwen3-asr(-[a-z0-9.]+)?$/, 'a speech-to-text model served by mlx-qwen3-asr', QWEN3_ASR],
];

/** `Flux-Dev:latest` → `flux-dev`; the namespace stays (`x/z-image-turbo` is Ollama's own). */
function untagged(name: string): string {
  const lower = name.toLowerCase();
  const slash = lower.lastIndexOf('/');
  const colon = lower.indexOf(':', slash + 1);
  return colon === -1 ? lower : lower.slice(0, colon);
}

function refusal(name: string, what: string, install: string): string {
  return `'${name}' is ${what}, not a runtime-native model, so it cannot be pulled: install it on the node with \`${install}\``;
}

function sidecarRefusal(name: string, backend: 'image' | 'transcription' | 'textEmbedding', model: SidecarModel) {
  switch (backend) {
    case 'image':
      return model.binary?.startsWith('diffusionkit') === true
        ? refusal(name, 'an image model served by DiffusionKit', DIFFUSIONKIT)
        : refusal(name, 'an image model served by mflux', MFLUX);
    case 'transcription':
      return refusal(name, 'a speech-to-text model served by mlx-qwen3-asr', QWEN3_ASR);
    case 'textEmbedding':
      return `'${name}' is served by a node agent's text-embedding sidecar, which downloads it on first use; it cannot be pulled through the model runtime`;
  }
}

/** The refusal for a name only a sidecar serves (no node's runtime has it), else undefined. */
function sidecarOnly(name: string, nodes: readonly NodeView[]): string | undefined {
  const keys = new Set(modelNameKeys(name));
  if (nodes.some((node) => node.models.some((model) => keys.has(model.name)))) return undefined;
  for (const node of nodes) {
    for (const backend of ['image', 'transcription', 'textEmbedding'] as const) {
      const model = node.sidecars[backend]?.models.find((entry) => keys.has(entry.name));
      if (model !== undefined) return sidecarRefusal(name, backend, model);
    }
  }
  return undefined;
}

/** The 400 message with install instructions when `name` is not runtime-native; undefined when it may be pulled. */
export function nonNativeModelMessage(name: string, snapshot: Pick<FleetSnapshot, 'nodes'>): string | undefined {
  const lower = name.toLowerCase();
  if (lower.startsWith('mlx:') || lower.startsWith('mlx-community/')) {
    return `${refusal(name, 'an MLX model', MLX_LM)}, which downloads it from Hugging Face`;
  }
  const base = untagged(name);
  for (const [pattern, what, install] of KNOWN_NON_NATIVE) {
    if (pattern.test(base)) return refusal(name, what, install);
  }
  return sidecarOnly(name, snapshot.nodes);
}

/** The same check without a snapshot: the names refused whatever the fleet holds. */
export function knownNonNativeMessage(name: string): string | undefined {
  return nonNativeModelMessage(name, { nodes: [] });
}
