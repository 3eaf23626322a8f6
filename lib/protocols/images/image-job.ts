/**
 * One image to generate, from either route's request (spec §4.2 `POST /v1/images/generations`, §4.5
 * `POST /api/generate-image`; anchor §4.3): the checked and defaulted fields, and the client's other
 * fields to forward. Defaults and bounds:
 * - `width` and `height` (`size` `WxH` on `/v1`): 1024 × 1024 (the reference's), each a whole number
 *   from 64 to 4096;
 * - `steps`: a whole number from 1 to 200; when absent the image sidecar gets 4 (the reference's default,
 *   and the contract's sidecar body always carries `steps`) and an Ollama-native model its own default;
 * - `guidance`, `seed`: passed on only when the client sent them (the generator picks otherwise);
 * - `prompt` must be a non-blank string; `stream: true` is refused (images come whole).
 * Anything outside a bound is a 400 naming the field, never clamped. Pure.
 */
import { BadRequestError } from '../../errors';
import { echoed } from '../../wire/echoed';
import type { GenerateImageRequest, OpenAIImageRequest } from '../../wire/images';

export const DEFAULT_SIDE = 1024;
export const DEFAULT_STEPS = 4;
export const MIN_SIDE = 64;
export const MAX_SIDE = 4096;
export const MIN_STEPS = 1;
export const MAX_STEPS = 200;

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

function side(value: number | null | undefined, field: string): number {
  if (value === undefined || value === null) return DEFAULT_SIDE;
  if (value < MIN_SIDE || value > MAX_SIDE) {
    throw new BadRequestError(`${field} must be a whole number from ${MIN_SIDE} to ${MAX_SIDE}`, field);
  }
  return value;
}

function steps(value: number | null | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (value < MIN_STEPS || value > MAX_STEPS) {
    throw new BadRequestError(`steps must be a whole number from ${MIN_STEPS} to ${MAX_STEPS}`, 'steps');
  }
  return value;
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

const SIZE = /^(\d{1,5})x(\d{1,5})$/;

/** `WIDTHxHEIGHT` (`auto` is OpenAI's "you choose": the default); absent = 1024x1024. */
export function parseImageSize(size: string | null | undefined): { width: number; height: number } {
  if (size === undefined || size === null || size === 'auto') return { width: DEFAULT_SIDE, height: DEFAULT_SIDE };
  const match = SIZE.exec(size);
  const width = Number(match?.[1]);
  const height = Number(match?.[2]);
  const inRange = (value: number) => value >= MIN_SIDE && value <= MAX_SIDE;
  if (match === null || !inRange(width) || !inRange(height)) {
    throw new BadRequestError(
      `size must be WIDTHxHEIGHT (like 1024x1024) with each side from ${MIN_SIDE} to ${MAX_SIDE}, got '${echoed(size)}'`,
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
