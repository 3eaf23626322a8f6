/** The documents of a rerank request within the limits of spec §8, never empty (anchor §4.2). */
import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../../lib/core/errors';
import {
  codePointsUpTo,
  MAX_RERANK_DOCUMENT_CHARS,
  MAX_RERANK_DOCUMENTS,
  rerankDocumentTexts,
} from '../../../../../lib/core/protocols/rerank/rerank-document-texts';

function refusal(run: () => unknown): BadRequestError {
  try {
    run();
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
  throw new Error('expected a BadRequestError');
}

describe('rerankDocumentTexts', () => {
  it('takes strings and {text} objects alike, in order', () => {
    const texts = rerankDocumentTexts(['first', { text: 'second', title: 'ignored' }, 'third']);

    expect(texts).toEqual(['first', 'second', 'third']);
  });

  it('takes exactly 1,000 documents and refuses 1,001 naming documents', () => {
    const thousand = Array.from({ length: MAX_RERANK_DOCUMENTS }, (_, index) => `doc ${index}`);

    expect(rerankDocumentTexts(thousand)).toHaveLength(1000);
    const error = refusal(() => rerankDocumentTexts([...thousand, 'one more']));
    expect(error.status).toBe(400);
    expect(error.param).toBe('documents');
    expect(error.message).toBe('documents: at most 1,000 documents per request, got 1,001');
  });

  it('refuses an empty list', () => {
    const error = refusal(() => rerankDocumentTexts([]));

    expect(error.param).toBe('documents');
  });

  it('takes a document of exactly 32,000 characters and refuses one of 32,001 naming it', () => {
    const longest = 'a'.repeat(MAX_RERANK_DOCUMENT_CHARS);

    expect(rerankDocumentTexts([longest])).toEqual([longest]);
    const error = refusal(() => rerankDocumentTexts(['short', `${longest}b`]));
    expect(error.param).toBe('documents.1');
    expect(error.message).toBe('documents.1: a document may have at most 32,000 characters, this one has 32,001');
  });

  it('names the text of an object document that is too long', () => {
    const error = refusal(() => rerankDocumentTexts([{ text: 'x'.repeat(40_000) }]));

    expect(error.param).toBe('documents.0.text');
    expect(error.message).toContain('this one has 40,000');
  });

  it('counts characters, not UTF-16 units: 32,000 emoji pass', () => {
    const emoji = '🦙'.repeat(MAX_RERANK_DOCUMENT_CHARS);

    expect(rerankDocumentTexts([emoji])).toEqual([emoji]);
    expect(refusal(() => rerankDocumentTexts([`${emoji}🦙`])).param).toBe('documents.0');
  });

  it('refuses an empty document naming its position', () => {
    expect(refusal(() => rerankDocumentTexts(['a', 'b', ''])).param).toBe('documents.2');
    expect(refusal(() => rerankDocumentTexts([{ text: '' }])).param).toBe('documents.0.text');
    expect(refusal(() => rerankDocumentTexts(['a', ''])).message).toBe('documents.1: a document must not be empty');
  });
});

describe('codePointsUpTo', () => {
  it('counts code points and stops one past the limit', () => {
    expect(codePointsUpTo('héllo', 10)).toBe(5);
    expect(codePointsUpTo('🦙🦙🦙', 3)).toBe(3);
    expect(codePointsUpTo('a'.repeat(100), 10)).toBe(11);
  });
});
