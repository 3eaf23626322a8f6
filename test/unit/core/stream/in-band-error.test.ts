import { describe, expect, it } from '@jest/globals';
import { BadRequestError, toRouterError, UpstreamError } from '../../../../lib/core/errors';
import { inBandError } from '../../../../lib/core/stream/in-band-error';

describe('inBandError', () => {
  it('writes an Ollama error line', () => {
    expect(inBandError('ollama', new UpstreamError('the node closed the stream before its final line'))).toBe(
      '{"error":"the node closed the stream before its final line"}\n',
    );
  });

  it('writes an OpenAI error event with the renderer envelope', () => {
    expect(inBandError('openai', new UpstreamError('the node failed: CUDA error'))).toMatchInlineSnapshot(`
      "data: {"error":{"message":"the node failed: CUDA error","type":"server_error","param":null,"code":"upstream_error"}}

      "
    `);
  });

  it('keeps the field of a 400 and hides the text of an unknown error', () => {
    expect(inBandError('openai', new BadRequestError('bad', 'messages.0'))).toContain('"param":"messages.0"');
    expect(inBandError('ollama', toRouterError(new Error('secret detail')))).toBe('{"error":"internal error"}\n');
  });
});
