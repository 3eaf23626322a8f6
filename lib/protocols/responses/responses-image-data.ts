/**
 * An `input_image` part → the bare base64 Ollama takes in `images` (protocols §4.1 → §2.3). A `data:`
 * URI must be base64 (Ollama decodes with Go's `StdEncoding`); an `http(s)` URL must be in the caller's
 * map of fetched images; a `file_id` needs OpenAI's file store, which the router does not have. Every
 * refusal is a 400 naming the part. Pure.
 */
import { BadRequestError } from '../../errors';
import type { ResponsesMessagePart } from '../../wire/responses';
import { isFetchedImageUrl } from '../openai/from-openai-chat-messages';

type ImagePart = Extract<ResponsesMessagePart, { type: 'input_image' }>;

/** Standard base64 with padding. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function responsesImageData(part: ImagePart, field: string, fetched: ReadonlyMap<string, string>): string {
  const url = part.image_url;
  if (url === undefined || url === null || url === '') {
    const reason =
      part.file_id === undefined || part.file_id === null
        ? 'an input_image needs an image_url'
        : 'file_id images need a file store the router does not have; send image_url';
    throw new BadRequestError(`${field}: ${reason}`, field);
  }
  const urlField = `${field}.image_url`;
  if (isFetchedImageUrl(url)) {
    const data = fetched.get(url);
    if (data === undefined) throw new BadRequestError(`${urlField}: the image could not be fetched`, urlField);
    return data;
  }
  if (!/^data:/i.test(url)) throw new BadRequestError(`${urlField}: expected a data: URI or an http(s) URL`, urlField);
  const comma = url.indexOf(',');
  if (comma === -1 || !url.slice(0, comma).toLowerCase().endsWith(';base64')) {
    throw new BadRequestError(`${urlField}: a data URI must be base64-encoded`, urlField);
  }
  const payload = url.slice(comma + 1);
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) {
    throw new BadRequestError(`${urlField}: the data URI is not valid base64`, urlField);
  }
  return payload;
}
