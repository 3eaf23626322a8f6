/**
 * Parses request and upstream JSON in one place, returning a result instead of throwing, and turns a
 * zod failure into a `BadRequestError` naming the first bad field as a dotted path.
 */
import type * as z from 'zod';
import { BadRequestError } from '../errors';
import type { HttpRequest } from './request';

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export function parseJson(text: string): ParseResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : 'invalid JSON' };
  }
}

/** The dotted path of the first issue, e.g. `memory.total_gb` or `messages.0.content`. */
export function issuePath(issue: z.core.$ZodIssue): string {
  return issue.path.map(String).join('.');
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
  const result = schema.safeParse(readJson(request));
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue === undefined ? '' : issuePath(issue);
    const message = issue === undefined ? 'invalid request' : issue.message;
    throw new BadRequestError(field === '' ? message : `${field}: ${message}`, field === '' ? undefined : field);
  }
  return result.data;
}
