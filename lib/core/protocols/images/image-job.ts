/**
 * One image to generate, from either route's request (spec §4.2 `POST /v1/images/generations`, §4.5
 * `POST /api/generate-image`; anchor §4.3): the checked and defaulted fields, and the client's other
 * fields to forward. Defaults and checks:
 * - `width` and `height` (`size` `WxH` on `/v1`): 1024 × 1024 (the reference's), each a positive whole
 *   number. The router sets no range of its own: the node knows what its model renders (32 × 32 for a
 *   thumbnail model, more than 4096 for another) and refuses the rest itself, and that refusal reaches
 *   the client with the node's status and words (`generate-image`). What protects the router from a huge
 *   image is the cap on a node reply read whole (64 MB, `exchangeWhole`), not a guess at sizes;
 * - `steps`: a positive whole number, likewise left to the node; when absent the image sidecar gets 4 (the
 *   reference's default, and the sidecar's body always carries `steps`, ARCHITECTURE.md §8.3) and an Ollama-native
 *   model its own default;
 * - `guidance`, `seed`: passed on only when the client sent them (the generator picks otherwise);
 * - `prompt` must be a non-blank string; `stream: true` is refused (images come whole).
 * A value that is not a positive whole number is a 400 naming the field, never clamped. Pure.
 */
import { BadRequestError } from '../../errors';
import { echoed } from '../../wire/echoed';
import type { GenerateImageRequest, OpenAIImageRequest } from '../../wire/images';

export const DEFAULT_SIDE = 1024;
export const DEFAULT_STEPS = 4;

export interface ImageJob {
  readonly model: string;
  readonly fallbackModels: readonly string[];
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  /** As the client sent it; absent = the backend's default (see the header). */
  readonly steps?: number;
  readonly guidance?: number;
  readonly seed?: number;
  /** The client's fields the router does not read (`negative_prompt`, …): forwarded to the node. */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** `b64_json` → JSON with the PNG in base64; `url` → the raw PNG, as the spec says (no URL hosting). */
export type ImageResponseFormat = 'b64_json' | 'url';

export interface OpenAIImageJob {
  readonly job: ImageJob;
  readonly responseFormat: ImageResponseFormat;
}

/** Fields read here or by the router itself: everything else is forwarded. */
const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'prompt',
  'width',
  'height',
  'steps',
  'guidance',
  'seed',
  'stream',
  'size',
  'response_format',
  'n',
  'fallback_models',
  'metadata',
  'user',
]);

function extraFields(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!KNOWN_FIELDS.has(key) && value !== undefined) extra[key] = value;
  }
  return extra;
}

/** The schema checked it is a whole number; the router only asks that it be positive (see the header). */
function positive(value: number, field: string): number {
  if (value < 1) throw new BadRequestError(`${field} must be a positive whole number, got ${value}`, field);
  return value;
}

function side(value: number | null | undefined, field: string): number {
  return value === undefined || value === null ? DEFAULT_SIDE : positive(value, field);
}

function steps(value: number | null | undefined): number | undefined {
  return value === undefined || value === null ? undefined : positive(value, 'steps');
}

function prompt(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new BadRequestError('prompt is required', 'prompt');
  return value;
}

type CommonBody = GenerateImageRequest | OpenAIImageRequest;

/** The fields both routes share, with `width` and `height` already known. */
function jobOf(body: CommonBody, width: number, height: number): ImageJob {
  if (body.stream === true) {
    throw new BadRequestError('stream is not supported for image generation: the image comes whole', 'stream');
  }
  const chosenSteps = steps(body.steps);
  return {
    model: body.model,
    fallbackModels: body.fallback_models ?? [],
    prompt: prompt(body.prompt),
    width,
    height,
    ...(chosenSteps !== undefined ? { steps: chosenSteps } : {}),
    ...(body.guidance !== undefined && body.guidance !== null ? { guidance: body.guidance } : {}),
    ...(body.seed !== undefined && body.seed !== null ? { seed: body.seed } : {}),
    extra: extraFields(body),
  };
}

/** `POST /api/generate-image`. */
export function fromGenerateImageRequest(body: GenerateImageRequest): ImageJob {
  prompt(body.prompt);
  return jobOf(body, side(body.width, 'width'), side(body.height, 'height'));
}

const SIZE = /^(\d+)x(\d+)$/;

/** `WIDTHxHEIGHT` (`auto` is OpenAI's "you choose": the default); absent = 1024x1024. */
export function parseImageSize(size: string | null | undefined): { width: number; height: number } {
  if (size === undefined || size === null || size === 'auto') return { width: DEFAULT_SIDE, height: DEFAULT_SIDE };
  const match = SIZE.exec(size);
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  const whole = (value: number) => Number.isSafeInteger(value) && value >= 1;
  if (match === null || !whole(width) || !whole(height)) {
    throw new BadRequestError(
      `size must be WIDTHxHEIGHT (like 1024x1024) with each side a positive whole number, got '${echoed(size)}'`,
      'size',
    );
  }
  return { width, height };
}

function responseFormat(value: string | null | undefined): ImageResponseFormat {
  if (value === undefined || value === null || value === 'b64_json') return 'b64_json';
  if (value === 'url') return 'url';
  throw new BadRequestError(`response_format must be b64_json or url, got '${echoed(value)}'`, 'response_format');
}

/**
 * `POST /v1/images/generations`. `n` must be 1 (or absent): one request generates one image, and several
 * requests are spread across the fleet's nodes where `n` images would queue on one.
 */
export function fromOpenAIImageRequest(body: OpenAIImageRequest): OpenAIImageJob {
  prompt(body.prompt);
  if (body.n !== undefined && body.n !== null && body.n !== 1) {
    throw new BadRequestError(
      'n must be 1: each request generates one image; send several requests for several images (the fleet spreads them across its nodes)',
      'n',
    );
  }
  const format = responseFormat(body.response_format);
  const { width, height } = parseImageSize(body.size);
  return { job: jobOf(body, width, height), responseFormat: format };
}
