import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../lib/core/errors';
import { readMultipartForm } from '../../../../lib/services/http/multipart';

const BOUNDARY = 'test-boundary-42';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

interface Part {
  readonly name: string;
  readonly filename?: string;
  readonly type?: string;
  readonly data: string | Buffer;
}

/** A multipart body written out by hand, byte for byte as RFC 7578 shows it. */
function body(parts: readonly Part[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`;
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n${type}\r\n`),
    );
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

async function rejection(promise: Promise<unknown>): Promise<BadRequestError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof BadRequestError)) throw new Error(`expected a BadRequestError, got ${String(error)}`);
  return error;
}

describe('readMultipartForm', () => {
  it('reads a file with its name, file name, content type and exact bytes, and the text fields', async () => {
    const audio = Buffer.from([0x52, 0x49, 0x46, 0x46, 0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d]);
    const form = await readMultipartForm(
      body([
        { name: 'model', data: 'qwen3-asr' },
        { name: 'audio', filename: 'speech.wav', type: 'audio/wav', data: audio },
        { name: 'language', data: 'en' },
      ]),
      TYPE,
    );

    expect(form.files).toEqual([{ field: 'audio', filename: 'speech.wav', contentType: 'audio/wav', data: audio }]);
    expect(form.fields).toEqual([
      { name: 'model', value: 'qwen3-asr' },
      { name: 'language', value: 'en' },
    ]);
  });

  it('takes a part with a content type of its own but no file name as a file', async () => {
    const form = await readMultipartForm(body([{ name: 'audio', type: 'audio/mpeg', data: 'ID3' }]), TYPE);

    expect(form.files).toEqual([
      { field: 'audio', filename: undefined, contentType: 'audio/mpeg', data: Buffer.from('ID3') },
    ]);
    expect(form.fields).toEqual([]);
  });

  it('strips a path from the file name', async () => {
    const form = await readMultipartForm(
      body([{ name: 'audio', filename: 'C:\\Users\\me\\speech.wav', type: 'audio/wav', data: 'x' }]),
      TYPE,
    );

    expect(form.files[0]?.filename).toBe('speech.wav');
  });

  it('accepts a quoted boundary and a content type in other letter case', async () => {
    const form = await readMultipartForm(
      body([{ name: 'audio', filename: 'a.wav', data: 'x' }]),
      `Multipart/Form-Data; boundary="${BOUNDARY}"`,
    );

    expect(form.files).toHaveLength(1);
  });

  it.each([
    ['JSON', 'application/json', /must be multipart\/form-data, not application\/json/],
    ['a urlencoded form', 'application/x-www-form-urlencoded', /must be multipart\/form-data/],
    ['no content type', undefined, /must be multipart\/form-data, not a body without a content type/],
    ['multipart/mixed', `multipart/mixed; boundary=${BOUNDARY}`, /must be multipart\/form-data/],
    ['no boundary', 'multipart/form-data', /malformed: Multipart: Boundary not found/],
  ])('refuses %s with 400', async (_case, contentType, message) => {
    const error = await rejection(
      readMultipartForm(body([{ name: 'audio', filename: 'a.wav', data: 'x' }]), contentType),
    );

    expect(error.status).toBe(400);
    expect(error.message).toMatch(message);
  });

  it.each([
    ['a boundary other than the body uses', body([{ name: 'audio', filename: 'a.wav', data: 'x' }], 'other')],
    ['a body cut off inside a part', body([{ name: 'audio', filename: 'a.wav', data: 'abcdef' }]).subarray(0, 90)],
    ['a body without its closing delimiter', body([{ name: 'audio', filename: 'a.wav', data: 'x' }]).subarray(0, 100)],
    ['an empty body', Buffer.alloc(0)],
    ['a body that is not multipart at all', Buffer.from('{"audio": "..."}')],
  ])('refuses %s with 400 malformed', async (_case, bytes) => {
    const error = await rejection(readMultipartForm(bytes, TYPE));

    expect(error.message).toMatch(/^the multipart\/form-data body is malformed: /);
  });

  it('refuses more files than allowed instead of dropping the extra ones', async () => {
    const twoFiles = body([
      { name: 'audio', filename: 'a.wav', data: 'a' },
      { name: 'audio', filename: 'b.wav', data: 'b' },
    ]);

    const error = await rejection(readMultipartForm(twoFiles, TYPE, { maxFiles: 1 }));

    expect(error.message).toBe('the form has more than 1 file(s)');
    await expect(readMultipartForm(twoFiles, TYPE, { maxFiles: 2 })).resolves.toMatchObject({
      files: [{ filename: 'a.wav' }, { filename: 'b.wav' }],
    });
  });

  it('refuses more text fields or parts than allowed', async () => {
    const fields = Array.from({ length: 4 }, (_unused, index) => ({ name: `f${index}`, data: 'v' }));

    await expect(readMultipartForm(body(fields), TYPE, { maxFields: 3 })).rejects.toThrow(
      'the form has more than 3 text fields',
    );
    await expect(readMultipartForm(body(fields), TYPE, { maxParts: 2 })).rejects.toThrow(
      'the form has more than 2 parts',
    );
  });

  it('refuses a text field over the size limit, naming it', async () => {
    const error = await rejection(
      readMultipartForm(body([{ name: 'prompt', data: 'x'.repeat(33) }]), TYPE, { maxFieldBytes: 32 }),
    );

    expect(error.message).toBe('form field prompt is longer than 32 bytes');
    expect(error.param).toBe('prompt');
  });

  it('reads a 5 MB file whole', async () => {
    const audio = Buffer.alloc(5 * 1024 * 1024, 7);

    const form = await readMultipartForm(body([{ name: 'audio', filename: 'long.wav', data: audio }]), TYPE);

    expect(form.files[0]?.data.equals(audio)).toBe(true);
  });
});
