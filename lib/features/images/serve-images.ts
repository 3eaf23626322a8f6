/**
 * The image routes (spec §4.2 `POST /v1/images/generations`, §4.5 `GET /api/image-models` and
 * `POST /api/generate-image`, §7): image generation must be enabled (503 saying how otherwise); the body
 * is checked (400 naming the field: `model`, `prompt`, `width`, `height`, `size`, `steps`, `n`,
 * `response_format`) before the fleet is asked. `/api/generate-image` answers the raw PNG; `/v1`
 * answers `{created, data: [{b64_json, revised_prompt}]}`, or with `response_format: url` the raw PNG as
 * the spec says. Both carry `X-Fleet-Node`, `X-Fleet-Score`, `X-Fleet-Model`, `X-Generation-Time`.
 * Defaults and bounds are in lib/core/protocols/images/image-job. The model list needs no switch: it says
 * what the fleet could generate with.
 */

import { merged } from '../../core/merged';
import { fromGenerateImageRequest, fromOpenAIImageRequest, type ImageJob } from '../../core/protocols/images/image-job';
import { toOpenAIImagesResponse } from '../../core/protocols/images/to-openai-images-response';
import { mergeTags } from '../../core/scoring/tags';
import { type ImageModelsList, parseGenerateImageRequest, parseOpenAIImageRequest } from '../../core/wire/images';
import type { WireParseResult } from '../../core/wire/parse-with';
import { readJson, requireModel, requireValid } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { requireImageGeneration } from '../../services/settings/require-image-generation';
import { type GeneratedImage, generateImage, type ImagesDeps } from './generate-image';
import { imageModelEntries } from './image-models';

interface TaggedBody {
  readonly metadata?: { readonly tags?: unknown; readonly priority?: unknown } | null | undefined;
  readonly user?: string | null | undefined;
}

/** `model is required` first (Ollama's words), then the schema's 400 naming the field. */
function readBody<T>(request: HttpRequest, parse: (body: unknown) => WireParseResult<T>): T {
  const raw = readJson(request);
  requireModel(raw);
  return requireValid(parse(raw));
}

function tagsOf(request: HttpRequest, body: TaggedBody): string[] {
  return mergeTags({
    metadataTags: body.metadata?.tags,
    headerValue: request.header('x-service-tags'),
    user: body.user,
  });
}

/** `job` generated for the route's request: its tags and priority, and the settings read's wait, traced. */
function generate(
  deps: ImagesDeps,
  request: HttpRequest,
  response: ResponseSink,
  job: ImageJob,
  body: TaggedBody,
  settingsWaitMs: number | undefined,
): Promise<GeneratedImage> {
  const metadataPriority = body.metadata?.priority;
  return generateImage(deps, { request, response, job, tags: tagsOf(request, body), metadataPriority, settingsWaitMs });
}

async function sendPng(response: ResponseSink, image: GeneratedImage): Promise<void> {
  response.start({
    statusCode: 200,
    headers: merged<Record<string, string>>(image.headers, { 'content-type': 'image/png' }),
  });
  await response.end(image.png);
}

export async function serveGenerateImage(
  deps: ImagesDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const settingsWaitMs = await requireImageGeneration(deps.settings);
  const body = readBody(request, parseGenerateImageRequest);
  const job = fromGenerateImageRequest(body);
  await sendPng(response, await generate(deps, request, response, job, body, settingsWaitMs));
}

export async function serveOpenAIImages(deps: ImagesDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const settingsWaitMs = await requireImageGeneration(deps.settings);
  const body = readBody(request, parseOpenAIImageRequest);
  const { job, responseFormat } = fromOpenAIImageRequest(body);
  const image = await generate(deps, request, response, job, body, settingsWaitMs);
  if (responseFormat === 'url') {
    await sendPng(response, image);
    return;
  }
  const created = Math.floor(Date.now() / 1000);
  await sendJson(response, toOpenAIImagesResponse(image.png, job.prompt, created), 200, image.headers);
}

export async function serveImageModels(
  deps: Pick<ImagesDeps, 'registry'>,
  _request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const list: ImageModelsList = { models: imageModelEntries(await deps.registry.snapshot()) };
  await sendJson(response, list);
}
