/**
 * An `input_image` part → the bare base64 Ollama takes in `images` (protocols §4.1 → §2.3). A `data:`
 * URI must be base64 (Ollama decodes with Go's `StdEncoding`); an `http(s)` URL must be in the caller's
 * map of fetched images; a `file_id` needs OpenAI's file store, which the router does not have. Every
 * refusal is a 400 naming the part. Pure.
 */
import { BadRequestError } from '../../errors';
import type { ResponsesMessagePart } from '../../wire/responses';
import { imageUrlData } from '../openai/from-openai-chat-messages';

type ImagePart = Extract<ResponsesMessagePart, { type: 'input_image' }>;

export function responsesImageData(part: ImagePart, field: string, fetched: ReadonlyMap<string, string>): string {
  const url = part.image_url;
  if (url === undefined || url === null || url === '') {
    const reason =
      part.file_id === undefined || part.file_id === null
        ? 'an input_image needs an image_url'
        : 'file_id images need a file store the router does not have; send image_url';
    throw new BadRequestError(`${field}: ${reason}`, field);
  }
  return imageUrlData(url, `${field}.image_url`, fetched);
}
