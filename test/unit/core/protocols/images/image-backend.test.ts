import { describe, expect, it } from '@jest/globals';
import { imageBackendOf } from '../../../../../lib/core/protocols/images/image-backend';
import { toOpenAIImagesResponse } from '../../../../../lib/core/protocols/images/to-openai-images-response';

describe('imageBackendOf', () => {
  it.each([
    ['mflux-generate-z-image-turbo', 'mflux'],
    ['mflux-generate', 'mflux'],
    ['/opt/homebrew/bin/mflux-generate', 'mflux'],
    ['diffusionkit-cli', 'diffusionkit'],
    ['sd-cli', 'sd-cli'],
    [undefined, 'image-sidecar'],
    ['/usr/bin/', 'image-sidecar'],
  ])('names %s as %s', (binary, backend) => {
    expect(imageBackendOf(binary)).toBe(backend);
  });
});

describe('toOpenAIImagesResponse', () => {
  it("answers the image in base64 with the client's prompt as revised_prompt", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

    expect(toOpenAIImagesResponse(png, 'a cat', 1_700_000_000)).toEqual({
      created: 1_700_000_000,
      data: [{ b64_json: 'iVBORw==', revised_prompt: 'a cat' }],
    });
  });
});
