import { describe, expect, it } from '@jest/globals';
import {
  BadRequestError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  toRouterError,
  UpstreamError,
  withHeaders,
} from '../../../../lib/core/errors';
import { familyForPath } from '../../../../lib/services/http/family';
import { renderError } from '../../../../lib/services/http/render-error';

describe('familyForPath', () => {
  it.each([
    ['/', 'ollama'],
    ['/api/chat', 'ollama'],
    ['/v1/messages', 'anthropic'],
    ['/v1/messages/count_tokens', 'anthropic'],
    ['/v1/chat/completions', 'openai'],
    ['/v1/rerank', 'openai'],
    ['/fleet/status', 'openai'],
    ['/apiary', 'openai'],
  ])('puts %s in the %s family', (path, family) => {
    expect(familyForPath(path)).toBe(family);
  });
});

describe('renderError', () => {
  it('renders the Ollama shape', () => {
    const rendered = renderError('ollama', new NotFoundError("model 'x' not found"));

    expect(rendered.statusCode).toBe(404);
    expect(JSON.parse(rendered.body)).toEqual({ error: "model 'x' not found" });
  });

  it('renders the OpenAI shape with the field named', () => {
    const rendered = renderError('openai', new BadRequestError('model is required', 'model'));

    expect(rendered.statusCode).toBe(400);
    expect(JSON.parse(rendered.body)).toEqual({
      error: { message: 'model is required', type: 'invalid_request_error', param: 'model', code: 'invalid_request' },
    });
  });

  it('renders the Anthropic shape', () => {
    const rendered = renderError('anthropic', new PayloadTooLargeError('too big'));

    expect(rendered.statusCode).toBe(413);
    expect(JSON.parse(rendered.body)).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: 'too big' },
    });
  });

  it('adds Retry-After to a 503 a retry can fix, and only x-should-retry: false to one it cannot', () => {
    const retryable = renderError('openai', new ServiceUnavailableError('busy', { retryAfterSeconds: 3 }));
    const final = renderError('openai', new ServiceUnavailableError('never', { retryable: false }));
    const finalWithWait = renderError(
      'openai',
      new ServiceUnavailableError('draining', { retryable: false, retryAfterSeconds: 30 }),
    );

    expect(retryable.headers['retry-after']).toBe('3');
    expect(retryable.headers['x-should-retry']).toBeUndefined();
    expect(final.headers['retry-after']).toBeUndefined();
    expect(final.headers['x-should-retry']).toBe('false');
    expect(finalWithWait.headers['retry-after']).toBeUndefined();
    expect(finalWithWait.headers['x-should-retry']).toBe('false');
  });

  it('sends the headers the error carries, the X-Fleet-* ones of the node that failed', () => {
    const error = withHeaders(new UpstreamError('node gpu1 failed'), { 'x-fleet-node': 'gpu1' });

    const rendered = renderError('ollama', error);

    expect(rendered.statusCode).toBe(502);
    expect(rendered.headers['x-fleet-node']).toBe('gpu1');
    expect(rendered.headers['content-type']).toContain('application/json');
  });

  it('hides the text of unknown errors', () => {
    const rendered = renderError('ollama', toRouterError(new Error('secret stack detail')));

    expect(rendered.statusCode).toBe(500);
    expect(rendered.body).not.toContain('secret');
  });
});
