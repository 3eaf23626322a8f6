import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../lib/core/errors';
import { parseJson } from '../../../../lib/core/wire/json';
import * as z from '../../../../lib/core/wire/zod';
import { readJsonBody } from '../../../../lib/services/http/parse-json';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { makeHttpEvent } from '../../../helpers/events';

const schema = z.looseObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(z.looseObject({ content: z.string() })),
});
const requestWith = (body?: string) =>
  toHttpRequest(makeHttpEvent({ method: 'POST', path: '/api/chat', ...(body === undefined ? {} : { body }) }));

describe('parseJson', () => {
  it('returns a result instead of throwing', () => {
    expect(parseJson('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJson('{"a":').ok).toBe(false);
  });
});

describe('readJsonBody', () => {
  it('returns the validated body, unknown fields kept', () => {
    const body = readJsonBody(requestWith('{"model":"m","messages":[],"keep_alive":"5m"}'), schema);

    expect(body).toEqual({ model: 'm', messages: [], keep_alive: '5m' });
  });

  it('refuses a missing body', () => {
    expect(() => readJsonBody(requestWith(), schema)).toThrow(new BadRequestError('missing request body'));
  });

  it('refuses a body that is not JSON', () => {
    expect(() => readJsonBody(requestWith('{"model":'), schema)).toThrow(/not valid JSON/);
  });

  it('names the first bad field as a dotted path', () => {
    let caught: unknown;
    try {
      readJsonBody(requestWith('{"model":"m","messages":[{"content":3}]}'), schema);
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(BadRequestError);
    expect((caught as BadRequestError).param).toBe('messages.0.content');
    expect((caught as BadRequestError).message).toMatch(/^messages\.0\.content: /);
  });
});
