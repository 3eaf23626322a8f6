/**
 * What a node's answer to an image job means (ARCHITECTURE.md §8.3; anchor §4.3 "any failure → 502"): the PNG
 * out of a sidecar's raw bytes or Ollama's base64 `image` — checked by its signature, whatever the
 * content type says — or the reason it is not one, and how a node's error reply reads. Pure.
 */

import { parseOllamaImageReply } from '../../wire/images';
import { parseJson } from '../../wire/json';
import { nodeErrorText } from '../../wire/node-error-text';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type NodeImage = { readonly ok: true; readonly png: Buffer } | { readonly ok: false; readonly reason: string };

export function isPng(bytes: Uint8Array): boolean {
  if (bytes.length < PNG_SIGNATURE.length) return false;
  for (let index = 0; index < PNG_SIGNATURE.length; index++) {
    if (bytes[index] !== PNG_SIGNATURE[index]) return false;
  }
  return true;
}

/** The image sidecar answers the PNG itself. */
export function imageFromSidecarReply(body: Buffer, contentType: string | undefined): NodeImage {
  if (isPng(body)) return { ok: true, png: body };
  const type = contentType === undefined || contentType === '' ? 'no content type' : `content type ${contentType}`;
  return { ok: false, reason: `the node's reply is not a PNG image (${body.length} bytes, ${type})` };
}

/** Ollama answers `{"image": "<base64 PNG>", "done": true, …}` for an image model. */
export function imageFromOllamaReply(body: Buffer): NodeImage {
  const json = parseJson(body.toString('utf8'));
  if (!json.ok) return { ok: false, reason: `the node's reply is not JSON: ${json.error}` };
  const reply = parseOllamaImageReply(json.value);
  if (!reply.ok) return { ok: false, reason: `the node's reply is not an Ollama generate reply (${reply.field})` };
  const image = reply.value.image;
  if (image === undefined || image === null || image === '') {
    return { ok: false, reason: "the node's reply carries no image: the model answered as a text model" };
  }
  const png = Buffer.from(image, 'base64');
  return isPng(png) ? { ok: true, png } : { ok: false, reason: "the node's image is not a PNG" };
}

/** `the node answered 500: out of memory`, from a node's error reply. */
export function describeNodeError(status: number, body: Buffer): string {
  const text = nodeErrorText(body);
  return text === undefined ? `the node answered ${status}` : `the node answered ${status}: ${text}`;
}
