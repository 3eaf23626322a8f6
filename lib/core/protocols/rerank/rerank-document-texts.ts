/**
 * The texts of a rerank request's documents, within the limits of spec §8 (1,000 documents, 32,000
 * characters each) and never empty (anchor §4.2): a 400 naming the document otherwise. Characters are
 * Unicode code points, as the reference's Python sidecar counts them (`len(text)`), so an emoji is one
 * character, not two UTF-16 units. Pure.
 */
import { BadRequestError } from '../../errors';
import type { RerankDocument } from '../../wire/rerank';

export const MAX_RERANK_DOCUMENTS = 1000;
export const MAX_RERANK_DOCUMENT_CHARS = 32_000;

const format = (count: number) => count.toLocaleString('en-US');

/** Code points in `text`, counting no further than `limit + 1` (enough to know it is over). */
export function codePointsUpTo(text: string, limit: number): number {
  // A string has at least as many UTF-16 units as code points: short ones need no walk.
  if (text.length <= limit) return text.length;
  let count = 0;
  for (const _ of text) {
    count += 1;
    if (count > limit) break;
  }
  return count;
}

function checkText(text: string, param: string): string {
  if (text === '') throw new BadRequestError(`${param}: a document must not be empty`, param);
  if (codePointsUpTo(text, MAX_RERANK_DOCUMENT_CHARS) > MAX_RERANK_DOCUMENT_CHARS) {
    const length = [...text].length;
    throw new BadRequestError(
      `${param}: a document may have at most ${format(MAX_RERANK_DOCUMENT_CHARS)} characters, this one has ${format(length)}`,
      param,
    );
  }
  return text;
}

/** One string per document, in order; throws `BadRequestError` on the first problem. */
export function rerankDocumentTexts(documents: readonly RerankDocument[]): string[] {
  if (documents.length === 0) throw new BadRequestError('documents: at least one document is required', 'documents');
  if (documents.length > MAX_RERANK_DOCUMENTS) {
    throw new BadRequestError(
      `documents: at most ${format(MAX_RERANK_DOCUMENTS)} documents per request, got ${format(documents.length)}`,
      'documents',
    );
  }
  return documents.map((document, index) =>
    typeof document === 'string'
      ? checkText(document, `documents.${index}`)
      : checkText(document.text, `documents.${index}.text`),
  );
}
