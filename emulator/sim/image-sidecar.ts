/**
 * The simulated image sidecar of a node agent (ARCHITECTURE.md §8.3, herd's mflux image server):
 * `POST /api/generate-image {model, prompt, width, height, steps, guidance?, seed?}` → a real PNG of the
 * requested size, a gradient derived from the prompt and seed, after `steps` × `stepMs`. It keeps the
 * bodies it was sent (`received`) so tests can check what the router forwarded.
 */
import type { ServerResponse } from 'node:http';
import { delay } from './clock';
import { type Fields, fieldsOf, isRecord, stringField } from './fields';
import { isGone, sendDetail } from './http';
import { gradientPng, isValidSide, MAX_IMAGE_SIDE } from './png';
import { jsonBody, type SimSidecar, startSidecarServer } from './sidecar';
import type { SimRequest } from './sim-server';

export interface ImageModel {
  readonly name: string;
  /** The generator binary behind it (`mflux-generate-z-image-turbo`, …). */
  readonly binary: string;
}

export interface ImageSidecarOptions {
  readonly host?: string;
  /** 0 (default) = an ephemeral port. */
  readonly port?: number;
  readonly models?: readonly ImageModel[];
  /** Simulated time per diffusion step, ms (default 5). */
  readonly stepMs?: number;
}

export interface ImageSidecar extends SimSidecar<ImageModel> {
  /** Every JSON body `POST /api/generate-image` received, oldest first. */
  readonly received: readonly Readonly<Record<string, unknown>>[];
  /** Resolves once the sidecar is generating: at once when it is, else when the next generation starts. */
  whenBusy(): Promise<void>;
}

export const DEFAULT_IMAGE_MODELS: readonly ImageModel[] = [
  { name: 'z-image-turbo', binary: 'mflux-generate-z-image-turbo' },
];

const DEFAULT_STEPS = 4;

type ImageKey = 'model' | 'prompt' | 'width' | 'height' | 'steps' | 'seed';
type ImageBody = Fields<ImageKey>;

function stepsOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? Math.min(value, 100) : DEFAULT_STEPS;
}

/** The validation problem with a request, as status and message, or undefined. */
function problemOf(body: ImageBody | undefined, models: readonly ImageModel[]): [number, string] | undefined {
  if (body === undefined) return [400, 'body must be a JSON object'];
  const prompt = stringField(body.prompt);
  if (prompt === undefined || prompt.trim() === '') return [400, 'prompt is required'];
  const model = stringField(body.model) ?? models[0]?.name;
  if (!models.some((m) => m.name === model)) return [404, `Unknown image model: ${String(body.model)}`];
  const sides = [body.width ?? 1024, body.height ?? 1024];
  if (!sides.every(isValidSide)) return [400, `width and height must be whole numbers from 1 to ${MAX_IMAGE_SIDE}`];
  return undefined;
}

export async function startImageSidecar(options: ImageSidecarOptions = {}): Promise<ImageSidecar> {
  const models = options.models ?? DEFAULT_IMAGE_MODELS;
  const stepMs = options.stepMs ?? 5;
  const received: Readonly<Record<string, unknown>>[] = [];
  let generating = 0;
  let busyWaiters: (() => void)[] = [];

  async function generate(request: SimRequest, res: ServerResponse): Promise<void> {
    const value = jsonBody(request, res);
    if (isGone(res)) return;
    const body = fieldsOf<ImageKey>(value);
    if (isRecord(value)) received.push(value);
    const problem = problemOf(body, models);
    if (problem !== undefined || body === undefined) {
      sendDetail(res, ...(problem ?? [400, 'body must be a JSON object']));
      return;
    }
    const width = Number(body.width ?? 1024);
    const height = Number(body.height ?? 1024);
    const started = Date.now();
    generating++;
    const waiters = busyWaiters;
    busyWaiters = [];
    for (const resolve of waiters) resolve();
    try {
      await delay(stepsOf(body.steps) * stepMs);
    } finally {
      generating--;
    }
    if (isGone(res)) return;
    const png = gradientPng(width, height, `${String(body.prompt)}|${String(body.seed ?? '')}`);
    res.writeHead(200, {
      'content-type': 'image/png',
      'content-length': png.length,
      'x-generation-time': String(Date.now() - started),
      'x-image-model': stringField(body.model) ?? models[0]?.name ?? '',
      'x-image-size': `${width}x${height}`,
    });
    res.end(png);
  }

  const sidecar = await startSidecarServer({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    models,
    routes: { 'POST /api/generate-image': generate },
    busy: () => generating > 0,
  });
  const whenBusy = (): Promise<void> =>
    generating > 0 ? Promise.resolve() : new Promise((resolve) => busyWaiters.push(resolve));
  return Object.assign(sidecar, { received, whenBusy });
}
