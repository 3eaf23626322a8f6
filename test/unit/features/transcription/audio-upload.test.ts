import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../lib/core/errors';
import { readAudioUpload } from '../../../../lib/features/transcription/audio-upload';
import { encodeUpload, uploadRequest, wavFile } from '../../../helpers/upload-form';

async function refusal(fields: Parameters<typeof encodeUpload>[0]): Promise<BadRequestError> {
  const error = await readAudioUpload(uploadRequest(await encodeUpload(fields))).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof BadRequestError)) throw new Error(`expected a BadRequestError, got ${String(error)}`);
  return error;
}

describe('readAudioUpload', () => {
  it('returns the audio file with its file name and type, the model, the user and the other fields', async () => {
    const audio = wavFile(0.5);
    const upload = await encodeUpload([
      ['audio', audio, 'meeting.wav'],
      ['model', ' qwen3-asr '],
      ['language', 'de'],
      ['user', 'alice'],
    ]);

    const read = await readAudioUpload(uploadRequest(upload));

    expect(read.audio).toEqual({ field: 'audio', filename: 'meeting.wav', contentType: 'audio/wav', data: audio });
    expect(read.model).toBe('qwen3-asr');
    expect(read.user).toBe('alice');
    expect(read.fields).toEqual([{ name: 'language', value: 'de' }]);
  });

  it('leaves the model out when the client named none', async () => {
    const read = await readAudioUpload(uploadRequest(await encodeUpload([['audio', wavFile(0.1)]])));

    expect(read.model).toBeUndefined();
    expect(read.fields).toEqual([]);
  });

  it('refuses a form without an audio file, saying how to send one', async () => {
    const error = await refusal([['model', 'qwen3-asr']]);

    expect(error.message).toBe(
      'no audio file: send the audio as the multipart file field "audio" (curl -F audio=@speech.wav)',
    );
    expect(error.param).toBe('audio');
  });

  it('refuses audio sent as a text field', async () => {
    const error = await refusal([['audio', 'not a file']]);

    expect(error.message).toMatch(/^form field audio must be a file upload/);
  });

  it('refuses a file in another field (the reference README used "file")', async () => {
    const error = await refusal([['file', wavFile(0.1)]]);

    expect(error.message).toBe('the file must be in the form field "audio", not "file"');
  });

  it('refuses an empty audio file', async () => {
    const error = await refusal([['audio', Buffer.alloc(0)]]);

    expect(error.message).toBe('the audio file is empty');
  });

  it('refuses a second file', async () => {
    const error = await refusal([
      ['audio', wavFile(0.1)],
      ['audio', wavFile(0.1), 'second.wav'],
    ]);

    expect(error.message).toBe('the form has more than 1 file(s)');
  });

  it.each([
    ['empty', [['model', '  ']], 'form field model is empty'],
    [
      'given twice',
      [
        ['model', 'a'],
        ['model', 'b'],
      ],
      'form field model is given more than once',
    ],
  ] as const)('refuses a model field that is %s', async (_case, modelFields, message) => {
    const error = await refusal([['audio', wavFile(0.1)], ...modelFields]);

    expect(error.message).toBe(message);
    expect(error.param).toBe('model');
  });
});
