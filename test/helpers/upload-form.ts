/**
 * Multipart bodies for the speech-to-text tests, encoded by the platform's own `FormData` (undici's
 * encoder, what `fetch` sends), not by the code under test.
 */
import { toHttpRequest } from '../../lib/services/http/request';
import { makeHttpEvent } from './events';

export interface EncodedUpload {
  readonly body: Buffer;
  readonly contentType: string;
}

/** A WAV header and `seconds` of 16 kHz 16-bit mono silence. */
export function wavFile(seconds: number): Buffer {
  const data = Math.round(seconds * 32_000);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data, 40);
  return Buffer.concat([header, Buffer.alloc(data)]);
}

/** `fields` as a form: a Buffer is a file part (with `filename`), a string a text field. */
export async function encodeUpload(
  fields: readonly (readonly [string, string | Buffer, string?])[],
  type = 'audio/wav',
): Promise<EncodedUpload> {
  const form = new FormData();
  for (const [name, value, filename] of fields) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value], { type }), filename ?? 'speech.wav');
  }
  const response = new Response(form);
  return {
    body: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get('content-type') ?? '',
  };
}

/** The request view of `POST /api/transcribe` with this upload (base64, as API Gateway passes multipart). */
export function uploadRequest(upload: EncodedUpload) {
  return toHttpRequest(
    makeHttpEvent({
      method: 'POST',
      path: '/api/transcribe',
      headers: { 'Content-Type': upload.contentType },
      body: upload.body,
    }),
  );
}
