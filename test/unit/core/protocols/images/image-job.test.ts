import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../../lib/core/errors';
import {
  fromGenerateImageRequest,
  fromOpenAIImageRequest,
  parseImageSize,
} from '../../../../../lib/core/protocols/images/image-job';
import {
  type GenerateImageRequest,
  type OpenAIImageRequest,
  parseGenerateImageRequest,
  parseOpenAIImageRequest,
} from '../../../../../lib/core/wire/images';

function generateBody(body: Record<string, unknown>): GenerateImageRequest {
  const parsed = parseGenerateImageRequest({ model: 'z-image-turbo', prompt: 'a red fox', ...body });
  if (!parsed.ok) throw new Error(`${parsed.field}: ${parsed.message}`);
  return parsed.value;
}

function openAIBody(body: Record<string, unknown>): OpenAIImageRequest {
  const parsed = parseOpenAIImageRequest({ model: 'z-image-turbo', prompt: 'a red fox', ...body });
  if (!parsed.ok) throw new Error(`${parsed.field}: ${parsed.message}`);
  return parsed.value;
}

function refusal(run: () => unknown): BadRequestError {
  try {
    run();
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('fromGenerateImageRequest', () => {
  it('defaults to 1024×1024 and leaves steps, guidance and seed to the backend', () => {
    expect(fromGenerateImageRequest(generateBody({}))).toEqual({
      model: 'z-image-turbo',
      fallbackModels: [],
      prompt: 'a red fox',
      width: 1024,
      height: 1024,
      extra: {},
    });
  });

  it('keeps what the client chose and forwards the fields it does not read', () => {
    const job = fromGenerateImageRequest(
      generateBody({
        width: 512,
        height: 768,
        steps: 8,
        guidance: 3.5,
        seed: 42,
        negative_prompt: 'blurry',
        quantize: 4,
        fallback_models: ['flux-schnell'],
        metadata: { tags: ['team:art'] },
        user: 'ada',
      }),
    );

    expect(job).toEqual({
      model: 'z-image-turbo',
      fallbackModels: ['flux-schnell'],
      prompt: 'a red fox',
      width: 512,
      height: 768,
      steps: 8,
      guidance: 3.5,
      seed: 42,
      extra: { negative_prompt: 'blurry', quantize: 4 },
    });
  });

  it.each([
    ['no prompt', { prompt: undefined }, 'prompt', 'prompt is required'],
    ['a blank prompt', { prompt: '   ' }, 'prompt', 'prompt is required'],
    ['a prompt that is not text', { prompt: 7 }, 'prompt', 'prompt is required'],
    ['a width of 0', { width: 0 }, 'width', 'width must be a positive whole number, got 0'],
    ['a negative height', { height: -1 }, 'height', 'height must be a positive whole number, got -1'],
    ['zero steps', { steps: 0 }, 'steps', 'steps must be a positive whole number, got 0'],
    ['stream: true', { stream: true }, 'stream', 'stream is not supported for image generation'],
  ])('refuses %s with a 400 naming the field', (_case, body, param, message) => {
    const error = refusal(() => fromGenerateImageRequest(generateBody(body)));

    expect(error.param).toBe(param);
    expect(error.message).toContain(message);
  });

  it('leaves the sizes and steps a node may render to the node: 32 px, 8192 px, 500 steps', () => {
    const job = fromGenerateImageRequest(generateBody({ width: 32, height: 8192, steps: 500 }));

    expect([job.width, job.height, job.steps]).toEqual([32, 8192, 500]);
  });
});

describe('generate-image request schema', () => {
  it.each([
    [{ width: 512.5 }, 'width', 'must be a whole number'],
    [{ height: 'abc' }, 'height', 'must be a whole number'],
    [{ steps: '4' }, 'steps', 'must be a whole number'],
    [{ guidance: 'high' }, 'guidance', 'must be a number'],
    [{ seed: 1.5 }, 'seed', 'must be a whole number'],
    [{ model: 3 }, 'model', 'must be a string'],
  ])('names the field of a wrong type: %j', (body, field, message) => {
    const parsed = parseGenerateImageRequest({ model: 'm', prompt: 'p', ...body });

    expect(parsed).toEqual({ ok: false, field, message });
  });
});

describe('parseImageSize', () => {
  it.each([
    [undefined, 1024, 1024],
    [null, 1024, 1024],
    ['auto', 1024, 1024],
    ['512x768', 512, 768],
    ['64x4096', 64, 4096],
    ['32x32', 32, 32],
    ['1024x5000', 1024, 5000],
  ])('reads %s as %i×%i', (size, width, height) => {
    expect(parseImageSize(size)).toEqual({ width, height });
  });

  it.each(['1024', '1024x', 'x1024', '1024X1024', '1024 x 1024', '-5x10', '0x10', '10x0', '1.5x2', 'abcx10', 'largex'])(
    "refuses '%s' with a 400 naming size",
    (size) => {
      const error = refusal(() => parseImageSize(size));

      expect(error.param).toBe('size');
      expect(error.message).toContain(`got '${size}'`);
    },
  );
});

describe('fromOpenAIImageRequest', () => {
  it('defaults to b64_json at 1024×1024', () => {
    const { job, responseFormat } = fromOpenAIImageRequest(openAIBody({}));

    expect(responseFormat).toBe('b64_json');
    expect([job.width, job.height]).toEqual([1024, 1024]);
    expect(job.extra).toEqual({});
  });

  it('reads size, steps, guidance and seed, and url as the response format', () => {
    const { job, responseFormat } = fromOpenAIImageRequest(
      openAIBody({ size: '256x512', steps: 6, guidance: 4, seed: 7, response_format: 'url', n: 1 }),
    );

    expect(responseFormat).toBe('url');
    expect(job).toMatchObject({ width: 256, height: 512, steps: 6, guidance: 4, seed: 7, extra: {} });
  });

  it.each([
    ['n: 2', { n: 2 }, 'n', 'n must be 1'],
    ['an unknown response_format', { response_format: 'png' }, 'response_format', "got 'png'"],
    ['a malformed size', { size: 'big' }, 'size', 'WIDTHxHEIGHT'],
    ['no prompt', { prompt: '' }, 'prompt', 'prompt is required'],
  ])('refuses %s with a 400 naming the field', (_case, body, param, message) => {
    const error = refusal(() => fromOpenAIImageRequest(openAIBody(body)));

    expect(error.param).toBe(param);
    expect(error.message).toContain(message);
  });

  it('checks the prompt before the other fields', () => {
    const error = refusal(() => fromOpenAIImageRequest(openAIBody({ prompt: undefined, size: 'big' })));

    expect(error.param).toBe('prompt');
  });
});
