/**
 * Reads a `multipart/form-data` request body (spec §4.5 `POST /api/transcribe`) with a streaming
 * multipart parser (@fastify/busboy) into its files and text fields. The body is already in memory
 * (at most the 6 MB Lambda limit), so it is written to the parser in one go; the parser still does the
 * boundary scanning, header parsing and limits. Anything wrong with the upload — not multipart, no or a
 * broken boundary, a body that ends early, more files, fields or parts than allowed, an oversized text
 * field — is a `BadRequestError`, never a 500: limits are errors, not silent truncation.
 *
 * The parser is loaded on the first upload, not at cold start: it is a sixth of the media function's
 * bundle, and only speech-to-text needs it.
 */
import type { BusboyFileStream } from '@fastify/busboy';
import { BadRequestError } from '../../core/errors';

type BusboyPackage = typeof import('@fastify/busboy');

let busboy: BusboyPackage['Busboy'] | undefined;

function loadBusboy(): BusboyPackage['Busboy'] {
  busboy ??= (require('@fastify/busboy') as BusboyPackage).Busboy;
  return busboy;
}

export interface FormFile {
  /** The form field's name (`audio`). */
  readonly field: string;
  /** The client's file name, without any path; undefined when the part had none. */
  readonly filename: string | undefined;
  /** The part's content type; `text/plain` when the part named none (RFC 7578 §4.4). */
  readonly contentType: string;
  readonly data: Buffer;
}

export interface FormField {
  readonly name: string;
  readonly value: string;
}

export interface MultipartForm {
  /** In the order they appear in the body. */
  readonly files: readonly FormFile[];
  /** In the order they appear in the body. */
  readonly fields: readonly FormField[];
}

export interface MultipartLimits {
  /** Most file parts (default 1). */
  readonly maxFiles?: number;
  /** Most text fields (default 20). */
  readonly maxFields?: number;
  /** Most parts of any kind (default 24). */
  readonly maxParts?: number;
  /** Longest text field value, bytes (default 64 KiB). */
  readonly maxFieldBytes?: number;
}

const MULTIPART = /^multipart\/form-data(?:\s*;|\s*$)/i;

/**
 * A part is a file when it has a file name or a content type of its own: `curl -F audio=@a.wav` sends
 * both, and audio posted without a file name (`Content-Type: audio/wav`) is a file too. A part with
 * neither is a text field.
 */
function isFile(_field: string | undefined, contentType: string | undefined, filename: string | undefined): boolean {
  return filename !== undefined || (contentType !== undefined && contentType !== 'text/plain');
}

function malformed(reason: string): BadRequestError {
  return new BadRequestError(`the multipart/form-data body is malformed: ${reason}`);
}

/** The parser for `contentType`, or a 400 when it is not multipart or has no boundary. */
function createParser(contentType: string | undefined, limits: Required<MultipartLimits>) {
  if (contentType === undefined || !MULTIPART.test(contentType)) {
    throw new BadRequestError(
      `the request must be multipart/form-data, not ${contentType === undefined ? 'a body without a content type' : contentType}`,
    );
  }
  try {
    return loadBusboy()({
      headers: { 'content-type': contentType },
      isPartAFile: isFile,
      limits: {
        files: limits.maxFiles,
        fields: limits.maxFields,
        parts: limits.maxParts,
        fieldSize: limits.maxFieldBytes,
      },
    });
  } catch (error) {
    // "Multipart: Boundary not found".
    throw malformed(error instanceof Error ? error.message : String(error));
  }
}

/** Parses `body` as `multipart/form-data` with the boundary of `contentType`; 400 on any problem. */
export async function readMultipartForm(
  body: Buffer,
  contentType: string | undefined,
  limits: MultipartLimits = {},
): Promise<MultipartForm> {
  const bounds: Required<MultipartLimits> = {
    maxFiles: limits.maxFiles ?? 1,
    maxFields: limits.maxFields ?? 20,
    maxParts: limits.maxParts ?? 24,
    maxFieldBytes: limits.maxFieldBytes ?? 64 * 1024,
  };
  const parser = createParser(contentType, bounds);
  return await new Promise((resolve, reject) => {
    const files: FormFile[] = [];
    const fields: FormField[] = [];
    let settled = false;
    const fail = (error: BadRequestError): void => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const collect = (field: string, stream: BusboyFileStream, filename: string, _encoding: string, type: string) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error: unknown) => fail(malformed(error instanceof Error ? error.message : String(error))));
      stream.on('end', () => {
        files.push({
          field,
          filename: filename === '' ? undefined : filename,
          contentType: type,
          data: Buffer.concat(chunks),
        });
      });
    };
    parser.on('file', collect);
    parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated)
        fail(new BadRequestError(`form field ${name} is longer than ${bounds.maxFieldBytes} bytes`, name));
      else fields.push({ name, value });
    });
    parser.on('filesLimit', () => fail(new BadRequestError(`the form has more than ${bounds.maxFiles} file(s)`)));
    parser.on('fieldsLimit', () => fail(new BadRequestError(`the form has more than ${bounds.maxFields} text fields`)));
    parser.on('partsLimit', () => fail(new BadRequestError(`the form has more than ${bounds.maxParts} parts`)));
    parser.on('error', (error: unknown) => fail(malformed(error instanceof Error ? error.message : String(error))));
    parser.on('finish', () => {
      if (settled) return;
      settled = true;
      resolve({ files, fields });
    });
    parser.end(body);
  });
}
