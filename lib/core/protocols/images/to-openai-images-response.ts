/**
 * The `POST /v1/images/generations` reply for `response_format: b64_json` (spec §4.2; protocols §5.3;
 * anchor §4.3): `{created, data: [{b64_json, revised_prompt}]}` — the prompt is not rewritten, so
 * `revised_prompt` is the client's own. The clock comes in as `created` (Unix seconds). Pure.
 */
import type { OpenAIImagesResponse } from '../../wire/images';

export function toOpenAIImagesResponse(png: Buffer, prompt: string, created: number): OpenAIImagesResponse {
  return { created, data: [{ b64_json: png.toString('base64'), revised_prompt: prompt }] };
}
