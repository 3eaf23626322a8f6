/** Reads a request body as JSON and validates it: a `BadRequestError` naming the first bad field on any problem. */
import { BadRequestError } from '../../core/errors';
import { parseJson } from '../../core/wire/json';
import { parseWith, type WireParseResult } from '../../core/wire/parse-with';
import type * as z from '../../core/wire/zod';
import type { HttpRequest } from './request';
import { checkRequestBounds } from './request-bounds';

/** Reads the body as JSON; 400 when it is missing, not JSON, or breaks a bound (`request-bounds.ts`). */
export function readJson(request: HttpRequest): unknown {
  const text = request.bodyText();
  if (text.length === 0) throw new BadRequestError('missing request body');
  const parsed = parseJson(text);
  if (!parsed.ok) throw new BadRequestError(`request body is not valid JSON: ${parsed.error}`);
  checkRequestBounds(parsed.value, text.length);
  return parsed.value;
}

/** The validated value, or a 400 naming the first bad field. */
export function requireValid<T>(result: WireParseResult<T>): T {
  if (result.ok) return result.value;
  if (result.field === 'body') throw new BadRequestError(result.message);
  throw new BadRequestError(`${result.field}: ${result.message}`, result.field);
}

/** Reads the body as JSON and validates it; 400 with the field named on any problem. */
export function readJsonBody<T>(request: HttpRequest, schema: z.ZodMiniType<T>): T {
  return requireValid(parseWith(schema, readJson(request), 'invalid request'));
}

/** Every routed request names its model: 400 `model is required` (Ollama's words) before anything else. */
export function requireModel(body: unknown): void {
  const model = typeof body === 'object' && body !== null ? Reflect.get(body, 'model') : undefined;
  if (model === undefined || model === null || model === '') throw new BadRequestError('model is required', 'model');
}
