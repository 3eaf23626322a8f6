import { describe, expect, it } from '@jest/globals';
import { gradientPng } from '../../../../../emulator/sim/png';
import {
  describeNodeError,
  imageFromOllamaReply,
  imageFromSidecarReply,
  isPng,
} from '../../../../../lib/core/protocols/images/node-image-reply';

const png = gradientPng(4, 4, 'test');
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('isPng', () => {
  it('recognises the PNG signature and nothing else', () => {
    expect(isPng(png)).toBe(true);
    expect(isPng(png.subarray(0, 7))).toBe(false);
    expect(isPng(Buffer.from('GIF89a....'))).toBe(false);
    expect(isPng(Buffer.alloc(0))).toBe(false);
  });
});

describe('imageFromSidecarReply', () => {
  it('takes the PNG bytes, whatever the content type says', () => {
    expect(imageFromSidecarReply(png, 'application/octet-stream')).toEqual({ ok: true, png });
  });

  it('refuses bytes that are not a PNG, saying what came', () => {
    expect(imageFromSidecarReply(Buffer.from('<html>oops</html>'), 'text/html')).toEqual({
      ok: false,
      reason: "the node's reply is not a PNG image (17 bytes, content type text/html)",
    });
    expect(imageFromSidecarReply(Buffer.alloc(0), undefined)).toEqual({
      ok: false,
      reason: "the node's reply is not a PNG image (0 bytes, no content type)",
    });
  });
});

describe('imageFromOllamaReply', () => {
  it('decodes the base64 image of the final reply', () => {
    const reply = imageFromOllamaReply(json({ model: 'x/z', done: true, response: '', image: png.toString('base64') }));

    expect(reply).toEqual({ ok: true, png });
  });

  it.each([
    ['a text answer', json({ model: 'llama3', response: 'Hello', done: true }), 'carries no image'],
    ['an empty image', json({ image: '', done: true }), 'carries no image'],
    ['a non-PNG image', json({ image: Buffer.from('GIF89a').toString('base64') }), 'is not a PNG'],
    ['a non-JSON body', Buffer.from('not json'), 'is not JSON'],
    ['an image that is not a string', json({ image: 5 }), 'not an Ollama generate reply (image)'],
  ])('refuses %s', (_case, body, reason) => {
    const reply = imageFromOllamaReply(body);

    expect(reply).toEqual({ ok: false, reason: expect.stringContaining(reason) });
  });
});

describe('describeNodeError', () => {
  it.each([
    [json({ error: 'model not found' }), 'the node answered 404: model not found'],
    [json({ detail: 'Unknown image model: flux' }), 'the node answered 404: Unknown image model: flux'],
    [json({ detail: [{ loc: ['body', 'prompt'], msg: 'field required' }] }), 'the node answered 404: field required'],
    [json({ error: { message: 'bad', type: 'invalid_request_error' } }), 'the node answered 404: bad'],
    [Buffer.from('Bad Gateway\n'), 'the node answered 404: Bad Gateway'],
    [Buffer.alloc(0), 'the node answered 404'],
    [Buffer.from([0xff, 0x00, 0x01]), 'the node answered 404'],
    [json({ something: 'else' }), 'the node answered 404: {"something":"else"}'],
  ])('describes %s', (body, text) => {
    expect(describeNodeError(404, body)).toBe(text);
  });

  it('keeps a long text reply short', () => {
    expect(describeNodeError(500, Buffer.from('x'.repeat(1000))).length).toBeLessThan(330);
  });
});
