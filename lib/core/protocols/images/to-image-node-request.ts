/**
 * An image job as the node that serves it takes it (ARCHITECTURE.md §8.3): the image sidecar's
 * `POST /api/generate-image {model, prompt, width, height, steps, guidance?, seed?}`, or, for an
 * Ollama-native image model, that node's `POST /api/generate` not streamed, with `width`, `height`,
 * `steps` at the top level and the seed in `options` as Ollama reads it. The client's extra fields go to
 * both; `guidance` only to the sidecar (Ollama has no such setting). The model is the node's own name
 * for it (`x/z-image-turbo:latest` for a request for `x/z-image-turbo`). Pure.
 */
import type { OllamaImageRequest, SidecarImageRequest } from '../../wire/images';
import { DEFAULT_STEPS, type ImageJob } from './image-job';

export function toSidecarImageRequest(job: ImageJob, model: string): SidecarImageRequest {
  return {
    ...job.extra,
    model,
    prompt: job.prompt,
    width: job.width,
    height: job.height,
    steps: job.steps ?? DEFAULT_STEPS,
    ...(job.guidance !== undefined ? { guidance: job.guidance } : {}),
    ...(job.seed !== undefined ? { seed: job.seed } : {}),
  };
}

function optionsOf(job: ImageJob): Readonly<Record<string, unknown>> | undefined {
  const given = job.extra['options'];
  const base = typeof given === 'object' && given !== null && !Array.isArray(given) ? given : undefined;
  if (job.seed === undefined) return base === undefined ? undefined : { ...base };
  return { ...base, seed: job.seed };
}

export function toOllamaImageRequest(job: ImageJob, model: string): OllamaImageRequest {
  const options = optionsOf(job);
  return {
    ...job.extra,
    model,
    prompt: job.prompt,
    stream: false,
    width: job.width,
    height: job.height,
    ...(job.steps !== undefined ? { steps: job.steps } : {}),
    ...(options !== undefined ? { options } : {}),
  };
}
