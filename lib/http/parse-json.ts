/**
 * Parses request and upstream JSON in one place, returning a result instead of throwing, and turns a
 * zod failure into a `BadRequestError` naming the first bad field as a dotted path.
 */
import type * as z from 'zod';
import { BadRequestError } from '../errors';
import { parseWith } from '../wire/parse-with';
import type { HttpRequest } from './request';

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export function parseJson(text: string): ParseResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : 'invalid JSON' };
  }
}

/** Reads the body as JSON; 400 when it is missing or not JSON. */
export function readJson(request: HttpRequest): unknown {
  if (request.body.length === 0) throw new BadRequestError('missing request body');
  const parsed = parseJson(request.body.toString('utf8'));
  if (!parsed.ok) throw new BadRequestError(`request body is not valid JSON: ${parsed.error}`);
  return parsed.value;
}

/** Reads the body as JSON and validates it; 400 with the field named on any problem. */
export function readJsonBody<T>(request: HttpRequest, schema: z.ZodType<T>): T {
  const result = parseWith(schema, readJson(request), 'invalid request');
  if (result.ok) return result.value;
  if (result.field === 'body') throw new BadRequestError(result.message);
  throw new BadRequestError(`${result.field}: ${result.message}`, result.field);
}
