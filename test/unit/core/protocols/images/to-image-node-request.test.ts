import { describe, expect, it } from '@jest/globals';
import type { ImageJob } from '../../../../../lib/core/protocols/images/image-job';
import {
  toOllamaImageRequest,
  toSidecarImageRequest,
} from '../../../../../lib/core/protocols/images/to-image-node-request';

const job: ImageJob = {
  model: 'z-image-turbo',
  fallbackModels: [],
  prompt: 'a lighthouse at dusk',
  width: 768,
  height: 512,
  extra: {},
};

describe('toSidecarImageRequest', () => {
  it('sends the contract body with the default 4 steps when the client chose none', () => {
    expect(toSidecarImageRequest(job, 'z-image-turbo')).toEqual({
      model: 'z-image-turbo',
      prompt: 'a lighthouse at dusk',
      width: 768,
      height: 512,
      steps: 4,
    });
  });

  it('adds steps, guidance, seed and the forwarded fields the client sent', () => {
    const full: ImageJob = { ...job, steps: 12, guidance: 3.5, seed: 99, extra: { negative_prompt: 'fog' } };

    expect(toSidecarImageRequest(full, 'flux-dev')).toEqual({
      negative_prompt: 'fog',
      model: 'flux-dev',
      prompt: 'a lighthouse at dusk',
      width: 768,
      height: 512,
      steps: 12,
      guidance: 3.5,
      seed: 99,
    });
  });

  it('never lets a forwarded field override what the router decided', () => {
    const body = toSidecarImageRequest({ ...job, extra: { model: 'other', width: 5 } }, 'z-image-turbo');

    expect([body.model, body.width]).toEqual(['z-image-turbo', 768]);
  });
});

describe('toOllamaImageRequest', () => {
  it("asks for one reply, leaves steps to the model's default and sends no guidance", () => {
    expect(toOllamaImageRequest({ ...job, guidance: 2 }, 'x/z-image-turbo:latest')).toEqual({
      model: 'x/z-image-turbo:latest',
      prompt: 'a lighthouse at dusk',
      stream: false,
      width: 768,
      height: 512,
    });
  });

  it('puts the seed in options, beside the options the client sent', () => {
    const body = toOllamaImageRequest(
      { ...job, steps: 9, seed: 5, extra: { options: { num_thread: 8 }, keep_alive: '5m', stream: true } },
      'x/z-image-turbo:latest',
    );

    expect(body).toEqual({
      model: 'x/z-image-turbo:latest',
      prompt: 'a lighthouse at dusk',
      stream: false,
      width: 768,
      height: 512,
      steps: 9,
      keep_alive: '5m',
      options: { num_thread: 8, seed: 5 },
    });
  });
});
