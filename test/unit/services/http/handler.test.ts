import { PassThrough } from 'node:stream';
import { describe, expect, it, jest } from '@jest/globals';
import { BadRequestError } from '../../../../lib/core/errors';
import { createBufferedHandler, createStreamingHandler, type RouteTable } from '../../../../lib/services/http/handler';
import { sendJson } from '../../../../lib/services/http/reply';
import type { LambdaHttpEvent } from '../../../../lib/services/http/request';
import { makeHttpEvent } from '../../../helpers/events';
import { httpResponseStreamFrom, RecordingStream } from '../../../helpers/recording-stream';

interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

const routes: RouteTable = {
  'GET /api/tags': (_request, response) => sendJson(response, { models: [] }),
  'GET /items/{id}': (request, response) => sendJson(response, { id: request.pathParameters['id'] ?? null }),
  'POST /api/chat': async () => {
    throw new BadRequestError('model is required', 'model');
  },
  'POST /v1/chat/completions': async () => {
    throw new Error('database password is hunter2');
  },
  'POST /v1/messages': (_request, response) => sendJson(response, { ok: true }),
  'GET /stream': async (_request, response) => {
    response.start({ statusCode: 200, headers: { 'content-type': 'application/x-ndjson' } });
    await response.write('{"n":1}\n');
    await response.write('{"n":2}\n');
    await response.end();
  },
  'GET /forgets-to-end': async (_request, response) => {
    response.start({ statusCode: 202, headers: { 'content-type': 'text/plain' } });
    await response.write('partial');
  },
};

/** Runs a handler on one host and returns what the client would see. */
type Host = (table: RouteTable, event: LambdaHttpEvent, afterResponse?: () => Promise<void>) => Promise<Reply>;

const buffered: Host = async (table, event, afterResponse) => {
  const handler = createBufferedHandler(table, afterResponse === undefined ? {} : { afterResponse });
  const result = await handler(event);
  return { statusCode: result.statusCode, headers: result.headers, body: result.body };
};

/** The streaming host, its prelude written and read back the way the Lambda runtime frames it. */
const streaming: Host = async (table, event, afterResponse) => {
  const stream = new RecordingStream();
  const options = afterResponse === undefined ? {} : { afterResponse };
  await createStreamingHandler(table, options, httpResponseStreamFrom)(event, stream);
  expect(stream.writableFinished).toBe(true);
  const reply = stream.reply();
  return { statusCode: reply.statusCode, headers: { ...reply.headers }, body: reply.body.toString('utf8') };
};

describe('handler options given as a function', () => {
  it('reads them on the first request, once, not when the handler is created', async () => {
    const source = jest.fn(() => ({ apiKeys: ['secret'] }));
    const handler = createBufferedHandler(routes, source);
    expect(source).not.toHaveBeenCalled();

    const refused = await handler(makeHttpEvent({ path: '/api/tags' }));
    const accepted = await handler(makeHttpEvent({ path: '/api/tags', headers: { authorization: 'Bearer secret' } }));

    expect(refused.statusCode).toBe(401);
    expect(accepted.statusCode).toBe(200);
    expect(source).toHaveBeenCalledTimes(1);
  });

  it('answers 500 in the family shape when they cannot be read', async () => {
    const handler = createBufferedHandler(routes, () => {
      throw new Error('invalid configuration: FLEET_PORT must be a whole number');
    });
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);

    const reply = await handler(makeHttpEvent({ path: '/api/tags' }));
    spy.mockRestore();

    expect(reply.statusCode).toBe(500);
    expect(JSON.parse(reply.body)).toEqual({ error: expect.any(String) });
  });
});

describe('a route table given as a function', () => {
  it('builds it on the first request, once, not when the handler is created', async () => {
    const build = jest.fn(() => routes);
    const handler = createStreamingHandler(build);
    expect(build).not.toHaveBeenCalled();

    const first = new RecordingStream();
    await handler(makeHttpEvent({ path: '/api/tags' }), first);
    const second = new RecordingStream();
    await handler(makeHttpEvent({ path: '/items/7' }), second);

    expect(JSON.parse(first.text())).toEqual({ models: [] });
    expect(JSON.parse(second.text())).toEqual({ id: '7' });
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('answers 500 in the family shape when it cannot be built, and builds it again on the next request', async () => {
    const build = jest
      .fn<() => RouteTable>()
      .mockImplementationOnce(() => {
        throw new Error('invalid configuration: FLEET_TABLE must not be empty');
      })
      .mockImplementation(() => routes);
    const handler = createBufferedHandler(build);
    const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);

    const failed = await handler(makeHttpEvent({ path: '/api/tags' }));
    const served = await handler(makeHttpEvent({ path: '/api/tags' }));
    spy.mockRestore();

    expect(failed.statusCode).toBe(500);
    expect(JSON.parse(failed.body)).toEqual({ error: expect.any(String) });
    expect(served.statusCode).toBe(200);
    expect(build).toHaveBeenCalledTimes(2);
  });
});

describe('createBufferedHandler and createStreamingHandler', () => {
  describe.each([
    ['buffered', buffered],
    ['streaming', streaming],
  ])('%s host', (_name, host) => {
    it('routes by method and path', async () => {
      const reply = await host(routes, makeHttpEvent({ path: '/api/tags' }));

      expect(JSON.parse(reply.body)).toEqual({ models: [] });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
    });

    it('passes path parameters matched from the template', async () => {
      const event = makeHttpEvent({ path: '/items/42', resource: '/items/{id}' });

      const reply = await host(routes, event);

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({ id: '42' });
    });

    it('renders a thrown RouterError in the family shape of the path', async () => {
      const reply = await host(routes, makeHttpEvent({ method: 'POST', path: '/api/chat', body: {} }));

      expect(JSON.parse(reply.body)).toEqual({ error: 'model is required' });
      expect(reply.statusCode).toBe(400);
    });

    it('turns an unknown error into a 500 that does not leak its text, and logs it for the operator', async () => {
      const logged: string[] = [];
      const spy = jest.spyOn(console, 'error').mockImplementation((line: unknown) => {
        logged.push(String(line));
      });

      const reply = await host(routes, makeHttpEvent({ method: 'POST', path: '/v1/chat/completions', body: {} }));
      spy.mockRestore();

      expect(logged.join('\n')).toContain('hunter2');
      expect(reply.statusCode).toBe(500);
      expect(JSON.parse(reply.body)).toEqual({
        error: { message: 'internal error', type: 'server_error', param: null, code: 'internal_error' },
      });
    });

    it('answers 404 in the family shape for an unknown path', async () => {
      const reply = await host(routes, makeHttpEvent({ path: '/v1/messages/nope' }));

      expect(reply.statusCode).toBe(404);
      expect(JSON.parse(reply.body)).toEqual({
        type: 'error',
        error: { type: 'not_found_error', message: 'no route for GET /v1/messages/nope' },
      });
    });

    it('answers 405 when the path exists for another method', async () => {
      const reply = await host(routes, makeHttpEvent({ method: 'DELETE', path: '/api/tags' }));

      expect(reply.statusCode).toBe(405);
      expect(JSON.parse(reply.body)).toEqual({ error: 'DELETE is not allowed on /api/tags' });
    });

    it('serves HEAD from the GET route', async () => {
      const reply = await host(routes, makeHttpEvent({ method: 'HEAD', path: '/api/tags' }));

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({ models: [] });
    });

    it('answers 413 for a body over 6 MB', async () => {
      const event = makeHttpEvent({ method: 'POST', path: '/v1/messages', body: 'x'.repeat(6 * 1024 * 1024 + 10) });

      const reply = await host(routes, event);

      expect(reply.statusCode).toBe(413);
      expect(JSON.parse(reply.body)).toEqual({
        type: 'error',
        error: { type: 'request_too_large', message: 'request body is larger than the 6 MB limit' },
      });
    });

    it('writes an empty chunk when a reply ends with no body, so the prelude still goes out', async () => {
      const table: RouteTable = {
        'GET /empty': async (_request, response) => {
          response.start({ statusCode: 204 });
          await response.end();
        },
      };

      const reply = await host(table, makeHttpEvent({ path: '/empty' }));

      expect(reply.body).toBe('');
      expect(reply.statusCode).toBe(204);
    });

    it('ends a stream the route left open', async () => {
      const reply = await host(routes, makeHttpEvent({ path: '/forgets-to-end' }));

      expect(reply.statusCode).toBe(202);
      expect(reply.headers['content-type']).toBe('text/plain');
      expect(reply.body).toBe('partial');
    });

    it('runs afterResponse once the reply ended', async () => {
      const order: string[] = [];
      const table: RouteTable = {
        'GET /x': async (_request, response) => {
          await response.end('done');
          order.push('ended');
        },
      };

      await host(table, makeHttpEvent({ path: '/x' }), async () => {
        order.push('after');
      });

      expect(order).toEqual(['ended', 'after']);
    });
  });

  it('writes streamed chunks in order, each as written, and nothing more', async () => {
    const stream = new RecordingStream();

    await createStreamingHandler(routes)(makeHttpEvent({ path: '/stream' }), stream);

    expect(stream.chunks.map((chunk) => chunk.toString())).toEqual(['{"n":1}\n', '{"n":2}\n']);
  });

  it('writes one empty chunk for a reply with no body, which is what sends the prelude in AWS', async () => {
    const stream = new RecordingStream();
    const table: RouteTable = {
      'GET /empty': async (_request, response) => {
        response.start({ statusCode: 204 });
        await response.end();
      },
    };

    await createStreamingHandler(table)(makeHttpEvent({ path: '/empty' }), stream);

    expect(stream.chunks.map((chunk) => chunk.length)).toEqual([0]);
  });

  it('waits for the reader when the stream pushes back', async () => {
    const stream = new PassThrough({ highWaterMark: 4 });
    const big = 'y'.repeat(64);
    let written = 0;
    const table: RouteTable = {
      'GET /big': async (_request, response) => {
        for (let index = 0; index < 5; index += 1) {
          await response.write(big);
          written += 1;
        }
        await response.end();
      },
    };

    const done = createStreamingHandler(table)(makeHttpEvent({ path: '/big' }), stream);
    await new Promise((resolve) => setImmediate(resolve));

    expect(written).toBe(0);
    stream.resume();
    await done;
    expect(written).toBe(5);
  });

  it('aborts the signal when the client goes away mid-stream', async () => {
    const stream = new PassThrough();
    stream.resume();
    let aborted = false;
    const table: RouteTable = {
      'GET /slow': async (_request, response) => {
        await response.write('first');
        await new Promise<void>((resolve) => {
          response.signal.addEventListener('abort', () => {
            aborted = true;
            resolve();
          });
          stream.destroy();
        });
      },
    };

    await createStreamingHandler(table)(makeHttpEvent({ path: '/slow' }), stream);

    expect(aborted).toBe(true);
  });
});

describe('a path with repeated or trailing slashes', () => {
  it.each(['//api/chat', '/api/chat/', '/api//chat', '//api/chat//'])(
    'serves %s as /api/chat, its errors in the Ollama shape',
    async (path) => {
      const reply = await buffered(routes, makeHttpEvent({ method: 'POST', path, resource: '/api/chat', body: {} }));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({ error: 'model is required' });
    },
  );

  it('answers an unknown path with repeated slashes in its family, naming the normalised path', async () => {
    const reply = await buffered(
      routes,
      makeHttpEvent({ method: 'GET', path: '//api/nothing/', resource: '/{proxy+}' }),
    );

    expect(reply.statusCode).toBe(404);
    expect(JSON.parse(reply.body)).toEqual({ error: 'no route for GET /api/nothing' });
  });
});
