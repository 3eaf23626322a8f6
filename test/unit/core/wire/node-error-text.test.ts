import { describe, expect, it } from '@jest/globals';
import { nodeErrorText } from '../../../../lib/core/wire/node-error-text';

const text = (body: string) => nodeErrorText(Buffer.from(body));

describe('nodeErrorText', () => {
  it("reads Ollama's error", () => {
    expect(text('{"error":"the input length exceeds the context length"}')).toBe(
      'the input length exceeds the context length',
    );
  });

  it("reads a FastAPI sidecar's detail", () => {
    expect(text('{"detail":"Unknown model: bge-large"}')).toBe('Unknown model: bge-large');
  });

  it("joins a FastAPI validation error's messages", () => {
    expect(text('{"detail":[{"loc":["body","input"],"msg":"field required"},{"msg":"too long"}]}')).toBe(
      'field required; too long',
    );
  });

  it('reads the OpenAI envelope', () => {
    expect(text('{"error":{"message":"model not found","type":"invalid_request_error"}}')).toBe('model not found');
  });

  it('keeps a short plain-text reply, as a proxy in between writes it', () => {
    expect(text('502 Bad Gateway')).toBe('502 Bad Gateway');
    expect(text('x'.repeat(1000))).toHaveLength(300);
  });

  it('shows JSON in another shape as it is', () => {
    expect(text('{"something":"else"}')).toBe('{"something":"else"}');
    expect(text('{"error":"  "}')).toBe('{"error":"  "}');
  });

  it('has no words for an empty body or binary bytes', () => {
    expect(text('')).toBeUndefined();
    expect(text('  \n')).toBeUndefined();
    expect(nodeErrorText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]))).toBeUndefined();
  });
});
