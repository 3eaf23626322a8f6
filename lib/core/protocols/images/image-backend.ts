/**
 * The `backend` of an image model in `GET /api/image-models` (spec §2 "Image model entry"; anchor §4.3):
 * for a sidecar model, the kind of generator behind it, from the binary the agent reports —
 * `mflux-generate…` → `mflux`, `diffusionkit-cli` → `diffusionkit`, any other binary by its own name,
 * `image-sidecar` when the agent named none; for a runtime-native image model, the runtime (`ollama`). Pure.
 */

export function imageBackendOf(binary: string | undefined): string {
  if (binary === undefined) return 'image-sidecar';
  // A path (`/opt/homebrew/bin/mflux-generate`) counts by its file name.
  const name = binary.slice(Math.max(binary.lastIndexOf('/'), binary.lastIndexOf('\\')) + 1).trim();
  if (name === '') return 'image-sidecar';
  if (name.startsWith('mflux-generate')) return 'mflux';
  if (name.startsWith('diffusionkit')) return 'diffusionkit';
  return name;
}
