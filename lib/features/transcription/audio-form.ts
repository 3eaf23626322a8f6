/**
 * The `multipart/form-data` body the router sends a speech-to-text sidecar (ARCHITECTURE.md §8.3 `POST
 * /transcribe`, field `audio`): the client's file under `audio` with its file name and content type,
 * the model as the node names it, and the client's other text fields. Encoded as browsers do (WHATWG
 * HTML "multipart/form-data encoding algorithm"): `"`, CR and LF in names are percent-encoded, text is
 * UTF-8. The boundary comes in as a parameter, so the bytes are deterministic. Pure.
 */
import type { FormField, FormFile } from '../../services/http/multipart';

export interface EncodedForm {
  readonly body: Buffer;
  /** `multipart/form-data; boundary=…`. */
  readonly contentType: string;
}

/** Escapes a name or file name for a quoted `Content-Disposition` parameter. */
function quoted(value: string): string {
  return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/** One CRLF-free header value (a content type the client sent is only passed on if it is one). */
function headerValue(value: string, fallback: string): string {
  return /^[\x20-\x7e]+$/.test(value) ? value : fallback;
}

export function encodeAudioForm(
  audio: FormFile,
  fields: readonly FormField[],
  boundary: string,
  audioField = 'audio',
): EncodedForm {
  const chunks: Buffer[] = [];
  for (const field of fields) {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(field.name)}\r\n\r\n`;
    chunks.push(Buffer.from(`${head}${field.value}\r\n`, 'utf8'));
  }
  const filename = audio.filename ?? audioField;
  const type = headerValue(audio.contentType, 'application/octet-stream');
  const fileHead =
    `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(audioField)}; filename=${quoted(filename)}\r\n` +
    `Content-Type: ${type}\r\n\r\n`;
  chunks.push(Buffer.from(fileHead, 'utf8'), audio.data, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
