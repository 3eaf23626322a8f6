/**
 * A minimal multipart/form-data reader for the speech-to-text sidecar's `POST /transcribe`: splits the
 * body on its boundary and reads each part's name, filename, content type and bytes. No streaming, no
 * nested parts: enough for one uploaded audio file.
 */

export interface MultipartPart {
  readonly name: string;
  readonly filename?: string;
  readonly contentType?: string;
  readonly data: Buffer;
}

/** The boundary of a `multipart/form-data; boundary=…` content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined || !/^multipart\/form-data/i.test(contentType)) return undefined;
  const match = contentType.match(/boundary=(?:"([^"]+)"|([^;\s]+))/i);
  return match?.[1] ?? match?.[2];
}

function headerParam(header: string, key: string): string | undefined {
  const match = header.match(new RegExp(`${key}="([^"]*)"`, 'i'));
  return match?.[1];
}

function parsePart(raw: Buffer): MultipartPart | undefined {
  const split = raw.indexOf('\r\n\r\n');
  if (split === -1) return undefined;
  const headers = raw.subarray(0, split).toString('utf8').split('\r\n');
  const disposition = headers.find((h) => /^content-disposition:/i.test(h));
  const name = disposition === undefined ? undefined : headerParam(disposition, 'name');
  if (name === undefined) return undefined;
  const type = headers.find((h) => /^content-type:/i.test(h));
  const filename = disposition === undefined ? undefined : headerParam(disposition, 'filename');
  return {
    name,
    ...(filename === undefined ? {} : { filename }),
    ...(type === undefined ? {} : { contentType: type.slice(type.indexOf(':') + 1).trim() }),
    data: raw.subarray(split + 4),
  };
}

/** The parts of a multipart body; malformed parts are skipped. */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] {
  const first = Buffer.from(`--${boundary}`);
  // Every delimiter after the first is preceded by CRLF, which belongs to it, not to the part.
  const between = Buffer.from(`\r\n--${boundary}`);
  const parts: MultipartPart[] = [];
  let cursor = body.indexOf(first);
  if (cursor !== -1) cursor += first.length;
  while (cursor !== -1 && body.subarray(cursor, cursor + 2).toString() === '\r\n') {
    const next = body.indexOf(between, cursor);
    if (next === -1) break;
    const part = parsePart(body.subarray(cursor + 2, next));
    if (part !== undefined) parts.push(part);
    cursor = next + between.length;
  }
  return parts;
}
