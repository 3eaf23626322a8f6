/**
 * The texts to embed, from a client's `input` (or `prompt`): a string or an array of strings (spec §4.2,
 * §4.4). Every refusal is a 400 naming the field, down to the item (`input.3`):
 * - an empty string is refused, never skipped: skipping would shift every later index (spec §4.2 item 2);
 * - an empty array is refused: there is nothing to embed, and a count check against zero proves nothing;
 * - OpenAI's token-id inputs (`[15339, 1917]`, `[[15339], [1917]]`) are refused with a clear message: the
 *   ids are cl100k ids, which mean nothing to the fleet's embedding models, and decoding them would embed
 *   text the client never wrote;
 * - anything else (numbers, objects, nulls inside the array) is refused with the expected type.
 * Pure.
 */
import { BadRequestError } from '../../errors';

const TOKEN_IDS = 'token-id inputs are not supported: send the text itself, as a string or an array of strings';

/** `[15339, 1917]`: what OpenAI's API takes for one pre-tokenized input. */
function isTokenIds(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number');
}

function emptyString(field: string): BadRequestError {
  return new BadRequestError(
    `${field} is an empty string: every input needs text (skipping it would shift the indexes)`,
    field,
  );
}

/** `field` is the name the client used (`input`, `prompt`); the texts are returned as they are. */
export function embeddingInputs(value: unknown, field: string): string[] {
  if (value === undefined || value === null) throw new BadRequestError(`${field} is required`, field);
  if (typeof value === 'string') {
    if (value === '') throw emptyString(field);
    return [value];
  }
  if (!Array.isArray(value)) {
    throw new BadRequestError(`${field} must be a string or an array of strings`, field);
  }
  if (value.length === 0) throw new BadRequestError(`${field} must not be an empty array`, field);
  if (isTokenIds(value)) throw new BadRequestError(`${field}: ${TOKEN_IDS}`, field);
  value.forEach((item: unknown, index) => {
    const itemField = `${field}.${index}`;
    if (item === '') throw emptyString(itemField);
    if (typeof item === 'string') return;
    if (isTokenIds(item)) throw new BadRequestError(`${itemField}: ${TOKEN_IDS}`, itemField);
    throw new BadRequestError(`${itemField} must be a string`, itemField);
  });
  return value as string[];
}
