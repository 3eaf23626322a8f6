import { describe, expect, it } from '@jest/globals';
import { parseMultipart } from '../../../../emulator/sim/multipart';
import { encodeAudioForm } from '../../../../lib/features/transcription/audio-form';
import { readMultipartForm } from '../../../../lib/services/http/multipart';
import { wavFile } from '../../../helpers/upload-form';

const audio = {
  field: 'upload',
  filename: 'interview.wav',
  contentType: 'audio/wav',
  data: wavFile(0.25),
};

describe('encodeAudioForm', () => {
  it('writes the fields and then the file under "audio", byte for byte as browsers do', () => {
    const small = { ...audio, data: Buffer.from('RIFF') };

    const form = encodeAudioForm(small, [{ name: 'language', value: 'en' }], 'b0');

    expect(form.contentType).toBe('multipart/form-data; boundary=b0');
    expect(form.body.toString('utf8')).toBe(
      '--b0\r\nContent-Disposition: form-data; name="language"\r\n\r\nen\r\n' +
        '--b0\r\nContent-Disposition: form-data; name="audio"; filename="interview.wav"\r\n' +
        'Content-Type: audio/wav\r\n\r\nRIFF\r\n--b0--\r\n',
    );
  });

  it('round-trips through the streaming parser with the audio bytes unchanged', async () => {
    const form = encodeAudioForm(audio, [{ name: 'prompt', value: 'Grüße, "Welt"' }], 'fleet-router-1234');

    const read = await readMultipartForm(form.body, form.contentType);

    expect(read.files).toEqual([
      { field: 'audio', filename: 'interview.wav', contentType: 'audio/wav', data: audio.data },
    ]);
    expect(read.fields).toEqual([{ name: 'prompt', value: 'Grüße, "Welt"' }]);
  });

  it("is read by the simulated sidecar's own parser", () => {
    const form = encodeAudioForm(audio, [], 'fleet-router-1234');

    const parts = parseMultipart(form.body, 'fleet-router-1234');

    expect(parts).toEqual([{ name: 'audio', filename: 'interview.wav', contentType: 'audio/wav', data: audio.data }]);
  });

  it('escapes quotes and line breaks in the file name, and names a file that had none after its field', () => {
    const quoted = encodeAudioForm({ ...audio, filename: 'a "b"\r\n.wav' }, [], 'b0').body.toString('utf8');
    const unnamed = encodeAudioForm({ ...audio, filename: undefined }, [], 'b0').body.toString('utf8');

    expect(quoted).toContain('filename="a %22b%22%0D%0A.wav"\r\n');
    expect(unnamed).toContain('name="audio"; filename="audio"\r\n');
  });

  it('does not pass on a content type that could break the part header', () => {
    const form = encodeAudioForm({ ...audio, contentType: 'audio/wav\r\nX-Evil: 1' }, [], 'b0');

    expect(form.body.toString('utf8')).toContain('Content-Type: application/octet-stream\r\n\r\n');
  });
});
